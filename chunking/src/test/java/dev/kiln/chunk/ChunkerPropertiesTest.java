package dev.kiln.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ChunkerConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.ContentType;
import dev.kiln.model.Document;
import dev.kiln.testing.TestSeeds;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Properties every chunking strategy keeps, over seeded random documents (the seed is in every
 * failure message, so a failure can be replayed): every non-whitespace source character lands in a
 * chunk; no chunk exceeds the budget unless it is a flagged indivisible block within the hard cap;
 * overlaps are as configured; code blocks and tables within the hard cap are never split, and a split
 * table repeats its header; ids and content keys are identical across runs and threads.
 */
@ExtendWith(TestSeeds.class)
class ChunkerPropertiesTest {
  static final int DOCS = 40;
  static ModelTokenizer english;
  static ModelTokenizer chinese;

  @BeforeAll
  static void open() {
    english = ModelTokenizer.open(ModelRegistry.resolve(ModelRegistry.DEFAULT_MODEL));
    chinese = ModelTokenizer.open(ModelRegistry.resolve("bge-small-zh-v15-q"));
  }

  @AfterAll
  static void close() {
    english.close();
    chinese.close();
  }

  static ChunkerConfig config(RandomDocuments gen, String strategy) {
    ChunkerConfig c = new ChunkerConfig();
    c.strategy = strategy;
    c.size = 16 + gen.random().nextInt(64);
    c.overlap = gen.random().nextInt(c.size / 3);
    c.hardCap = c.size * 2 + gen.random().nextInt(c.size);
    return c;
  }

  @Test
  void windowChunksOfText() {
    for (long seed = 1; seed <= DOCS; seed++) {
      RandomDocuments gen = new RandomDocuments(seed);
      ChunkerConfig c = config(gen, ChunkerConfig.WINDOW);
      Document doc = new Document("t" + seed, "", gen.text(0.3), Map.of(), "mem:");
      check(english, c, doc, doc.text(), "window seed " + seed);
    }
  }

  @Test
  void recursiveChunksOfEnglishAndChineseText() {
    int overlapped = 0;
    for (long seed = 1; seed <= DOCS; seed++) {
      for (ModelTokenizer tokenizer : List.of(english, chinese)) {
        RandomDocuments gen = new RandomDocuments(seed);
        ChunkerConfig c = config(gen, ChunkerConfig.RECURSIVE);
        Document doc = new Document("t" + seed, "", gen.text(tokenizer == chinese ? 0.8 : 0.2), Map.of(), "mem:");
        overlapped += check(tokenizer, c, doc, doc.text(), "recursive " + tokenizer.spec().name() + " seed " + seed);
      }
    }
    assertTrue(overlapped > DOCS, "overlap must actually be applied, was in " + overlapped + " chunk pairs");
  }

  @Test
  void markdownStructureChunks() {
    int tablesSplit = 0;
    int oversize = 0;
    for (long seed = 1; seed <= DOCS; seed++) {
      RandomDocuments gen = new RandomDocuments(seed);
      ChunkerConfig c = config(gen, ChunkerConfig.AUTO);
      Document doc = new Document("m" + seed + ".md", "", gen.markdown(), Map.of(), "mem:", ContentType.MARKDOWN);
      String where = "markdown seed " + seed + " size " + c.size + " hard cap " + c.hardCap;
      List<Chunk> chunks = new DocumentChunker(english, c).cut(doc).chunks();
      check(english, c, doc, doc.text(), where);
      for (String code : gen.codeBlocks) {
        if (english.countTokens(code) <= c.hardCap) {
          assertTrue(chunks.stream().anyMatch(ch -> ch.text().contains(code)), where + ": code block split: " + code);
        }
      }
      for (String table : gen.tables) {
        if (english.countTokens(table) <= c.hardCap) {
          assertTrue(chunks.stream().anyMatch(ch -> ch.text().contains(table)), where + ": table split: " + table);
        } else {
          tablesSplit++;
        }
      }
      // Every table part starts with the header row: the first part as written, later ones repeated.
      for (Chunk ch : chunks) {
        if (ch.text().startsWith("| ")) {
          assertTrue(ch.text().startsWith("| key | value |\n| --- | --- |"), where + ": a table part lost its header: "
              + ch.text());
        }
        oversize += ch.oversize() ? 1 : 0;
      }
    }
    assertTrue(tablesSplit > 0 && oversize > 0, "the seeds must exercise split tables (" + tablesSplit
        + ") and oversize blocks (" + oversize + ")");
  }

  @Test
  void htmlStructureChunks() {
    for (long seed = 1; seed <= DOCS; seed++) {
      RandomDocuments gen = new RandomDocuments(seed);
      ChunkerConfig c = config(gen, ChunkerConfig.AUTO);
      Document doc = new Document("h" + seed + ".html", "", gen.html(), Map.of(), "mem:", ContentType.HTML);
      String extracted = HtmlStructure.parse(doc.text()).text();
      assertTrue(!extracted.contains("never indexed") && !extracted.contains("menu") && !extracted.contains("footer"),
          "seed " + seed + ": page furniture leaked: " + extracted);
      check(english, c, doc, extracted, "html seed " + seed);
    }
  }

  @Test
  void parentChildChunksCoverTheDocumentAndPointToParents() {
    for (long seed = 1; seed <= DOCS / 2; seed++) {
      RandomDocuments gen = new RandomDocuments(seed);
      ChunkerConfig c = config(gen, ChunkerConfig.AUTO);
      c.parents.enabled = true;
      c.parents.size = c.size * 3;
      Document doc = new Document("p" + seed + ".md", "", gen.markdown(), Map.of(), "mem:", ContentType.MARKDOWN);
      DocumentChunker.Result r = new DocumentChunker(english, c).cut(doc);
      Map<String, String> parentText = new HashMap<>();
      r.parents().forEach(p -> parentText.put(p.parentId(), p.text()));
      assertEquals(r.parents().size(), parentText.size(), "parent ids are unique");
      for (Chunk ch : r.chunks()) {
        String where = "seed " + seed + " " + ch.chunkId();
        assertTrue(parentText.containsKey(ch.parentId()), where + " points to a missing parent " + ch.parentId());
        assertTrue(parentText.get(ch.parentId()).contains(ch.text()) || ch.text().contains("| --- |"),
            where + ": a child's text lies inside its parent");
        assertTrue(ch.tokens() <= c.size || ch.oversize(), where + " over the child size");
      }
      for (var p : r.parents()) {
        assertTrue(r.chunks().stream().anyMatch(ch -> ch.parentId().equals(p.parentId()))
            || p.text().isBlank(), "seed " + seed + ": parent " + p.parentId() + " has no child");
      }
    }
  }

  @Test
  void idsAndContentKeysAreIdenticalAcrossRunsAndThreads() throws Exception {
    ChunkerConfig c = new ChunkerConfig();
    c.size = 32;
    c.overlap = 6;
    c.hardCap = 80;
    List<Document> docs = new ArrayList<>();
    for (long seed = 1; seed <= 24; seed++) {
      RandomDocuments gen = new RandomDocuments(seed);
      docs.add(switch ((int) (seed % 3)) {
        case 0 -> new Document("d" + seed, "T", gen.text(0.3), Map.of(), "mem:");
        case 1 -> new Document("d" + seed, "T", gen.markdown(), Map.of(), "mem:", ContentType.MARKDOWN);
        default -> new Document("d" + seed, "T", gen.html(), Map.of(), "mem:", ContentType.HTML);
      });
    }
    Map<String, List<Chunk>> sequential = new HashMap<>();
    DocumentChunker one = new DocumentChunker(english, c);
    for (Document d : docs) {
      sequential.put(d.id(), one.cut(d).chunks());
    }
    // Two workers, each with its own tokenizer, take every other document in reverse order: like two
    // Flink subtasks receiving documents in another order.
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<Map<String, List<Chunk>>>> parts = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        int worker = w;
        parts.add(pool.submit(() -> {
          Map<String, List<Chunk>> out = new HashMap<>();
          try (ModelTokenizer own = ModelTokenizer.open(ModelRegistry.resolve(ModelRegistry.DEFAULT_MODEL))) {
            DocumentChunker chunker = new DocumentChunker(own, c);
            for (int i = docs.size() - 1; i >= 0; i--) {
              if (i % 2 == worker) {
                out.put(docs.get(i).id(), chunker.cut(docs.get(i)).chunks());
              }
            }
          }
          return out;
        }));
      }
      Map<String, List<Chunk>> parallel = new HashMap<>();
      for (var f : parts) {
        parallel.putAll(f.get());
      }
      assertEquals(sequential, parallel);
    } finally {
      pool.shutdown();
    }
    for (List<Chunk> chunks : sequential.values()) {
      for (Chunk ch : chunks) {
        assertEquals(64, ch.contentKey().length(), ch.chunkId()); // ContentKey: full SHA-256 hex
      }
    }
    ChunkerConfig other = new ChunkerConfig();
    other.size = 33;
    other.overlap = 6;
    other.hardCap = 80;
    assertTrue(!c.fingerprint("m").equals(other.fingerprint("m")), "the fingerprint covers the size");
  }

  /**
   * Checks the common properties of one document's chunks against {@code source} (the text the
   * offsets refer to) and returns the number of consecutive pairs that overlap.
   */
  static int check(ModelTokenizer tokenizer, ChunkerConfig c, Document doc, String source, String where) {
    DocumentChunker chunker = new DocumentChunker(tokenizer, c);
    List<Chunk> chunks = chunker.cut(doc).chunks();
    assertEquals(chunks, chunker.cut(doc).chunks(), where + ": chunking is deterministic");
    boolean[] covered = new boolean[source.length()];
    for (int i = 0; i < chunks.size(); i++) {
      Chunk ch = chunks.get(i);
      assertEquals(doc.id() + "#" + i, ch.chunkId(), where);
      assertEquals(i, ch.ordinal(), where);
      assertTrue(ch.text().endsWith(source.substring(ch.startChar(), ch.endChar())),
          where + ": " + ch.chunkId() + " is not its source span");
      assertTrue(ch.tokens() <= c.size || ch.oversize(),
          where + ": " + ch.chunkId() + " has " + ch.tokens() + " tokens > " + c.size + " and is not flagged");
      if (ch.oversize()) {
        assertTrue(ch.tokens() <= c.hardCap, where + ": " + ch.chunkId() + " over the hard cap");
      }
      for (int k = ch.startChar(); k < ch.endChar(); k++) {
        covered[k] = true;
      }
    }
    for (int k = 0; k < source.length(); k++) {
      if (!Character.isWhitespace(source.charAt(k))) {
        int at = k;
        assertTrue(covered[k], () -> where + ": character " + at + " '" + source.charAt(at) + "' is in no chunk: "
            + source.substring(Math.max(0, at - 30), Math.min(source.length(), at + 30)));
      }
    }
    TokenSpans spans = TokenSpans.of(tokenizer, source);
    int overlapped = 0;
    for (int i = 1; i < chunks.size(); i++) {
      Chunk prev = chunks.get(i - 1);
      Chunk next = chunks.get(i);
      int shared = 0;
      for (int t = spans.firstAtOrAfter(next.startChar()); t < spans.size() && spans.end(t) <= prev.endChar(); t++) {
        shared++;
      }
      assertTrue(shared <= c.overlap, where + ": chunks " + (i - 1) + "/" + i + " share " + shared
          + " tokens > overlap " + c.overlap);
      if (ChunkerConfig.WINDOW.equals(c.strategy)) {
        assertEquals(c.overlap, shared, where + ": window overlap");
      }
      overlapped += shared > 0 ? 1 : 0;
    }
    return overlapped;
  }
}
