package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.index.Analyzers;
import dev.kiln.index.Languages;
import dev.kiln.search.SearchHit;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.testing.RandomUnicodeText;
import dev.kiln.testing.TestSeeds;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Text is never altered between the corpus and the snapshot, for any Unicode. A corpus of seeded
 * random documents from every plane (emoji and their sequences, CJK Extension B, mathematical
 * letters, combining marks, CRLF, byte-order marks, control and zero-width characters), as JSON lines
 * and as Markdown files, is built with small chunks; then every word of every document is searched
 * with BM25 and must find its document, and every stored chunk text a search returns is a substring
 * of its document's text. A record holding half of a surrogate pair is quarantined as
 * {@code invalid_unicode} and counted; the build goes on.
 *
 * <p>A word is searched where the query and the document are analysed alike: the searcher analyses a
 * query with the Chinese segmenter when most of its letters are Han, and a document by its language
 * (here its {@code language} metadata), so a Han word is looked up in the Chinese documents and any
 * other word in the others. Words that analyse to no term (stop words, symbols) find nothing by design.
 */
class UnicodeCorpusITCase {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int JSON_DOCS = 24;
  private static final int MARKDOWN_DOCS = 6;

  @TempDir static Path work;
  static Path root;
  static Manifest manifest;
  /** Each document's text and whether it was indexed as Chinese. */
  static final Map<String, String> texts = new LinkedHashMap<>();
  static final Map<String, Boolean> chinese = new HashMap<>();
  static final Map<String, List<String>> words = new HashMap<>();

  @BeforeAll
  static void build() throws Exception {
    Path corpus = Files.createDirectories(work.resolve("corpus"));
    RandomUnicodeText gen = new RandomUnicodeText(TestSeeds.derive("UnicodeCorpusITCase"));
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < JSON_DOCS; i++) {
      String id = "u" + i;
      boolean zh = i % 4 == 3;
      Words text = Words.draw(gen, 20 + gen.random().nextInt(60));
      texts.put(id, text.text());
      words.put(id, text.words());
      ObjectNode row = JSON.createObjectNode().put("_id", id).put("text", text.text());
      row.putObject("metadata").put("language", zh ? "zh" : "en");
      lines.append(JSON.writeValueAsString(row)).append('\n');
      chinese.put(id, zh);
    }
    // Half of a surrogate pair: valid JSON, no character.
    lines.append("{\"_id\": \"lone\", \"text\": \"before \\ud800 after\"}\n");
    Files.writeString(corpus.resolve("records.jsonl"), lines, StandardCharsets.UTF_8);
    Path tree = Files.createDirectories(corpus.resolve("pages"));
    for (int i = 0; i < MARKDOWN_DOCS; i++) {
      String name = "page" + i + ".md";
      // A file with a NUL is binary_file by design, so the pages leave U+0000 out.
      List<Words> parts = List.of(Words.draw(gen, 3).withoutNul(), Words.draw(gen, 30 + gen.random().nextInt(40))
          .withoutNul(), Words.draw(gen, 2).withoutNul(), Words.draw(gen, 20).withoutNul());
      String body = "# " + parts.get(0).text() + "\n\n" + parts.get(1).text() + "\n\n## " + parts.get(2).text()
          + "\n\n" + parts.get(3).text();
      String id = "pages/" + name;
      texts.put(id, body);
      words.put(id, parts.stream().flatMap(p -> p.words().stream()).toList());
      Files.writeString(tree.resolve(name), body, StandardCharsets.UTF_8);
      chinese.put(id, Languages.isChinese(body));
    }
    root = work.resolve("snapshots");
    manifest = SmallBuilds.build(corpus.toString(), root.toString(), c -> {
      c.chunker.size = 24;
      c.chunker.overlap = 4;
      c.ingest.maxBadFraction = 0.2;
    }, new ByteArrayOutputStream());
  }

  /** Random text of some words, with the words it was made of. */
  private record Words(String text, List<String> words) {
    static Words draw(RandomUnicodeText gen, int n) {
      StringBuilder sb = new StringBuilder();
      List<String> ws = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        sb.append(i > 0 ? gen.gap() : "");
        String w = gen.word();
        ws.add(w);
        sb.append(w);
      }
      return new Words(sb.toString(), ws);
    }

    Words withoutNul() {
      return new Words(text.replace("\0", ""), words.stream().map(w -> w.replace("\0", "")).toList());
    }
  }

  @Test
  void halfASurrogatePairIsQuarantinedAndTheRestIsBuilt() {
    assertEquals(Map.of("invalid_unicode", 1L), manifest.quarantine().byReason());
    assertTrue(manifest.totalChunks() > JSON_DOCS + MARKDOWN_DOCS, "chunks: " + manifest.totalChunks());
  }

  @Test
  void everyWordFindsItsDocumentAndEveryStoredTextIsASubstringOfIt() throws IOException {
    int searched = 0;
    int supplementary = 0;
    try (Searcher searcher = Searcher.open(root);
        Analyzer english = Analyzers.forName(manifest.index().analyzer());
        Analyzer smartcn = Analyzers.forName(Analyzers.CHINESE)) {
      for (Map.Entry<String, String> doc : texts.entrySet()) {
        String id = doc.getKey();
        for (String word : words.get(id)) {
          boolean hanQuery = Languages.isChinese(word);
          if (hanQuery != chinese.get(id) || !hasTerms(hanQuery ? smartcn : english, word)) {
            continue;
          }
          List<SearchHit> hits = searcher.bm25(word, 1000);
          assertTrue(hits.stream().anyMatch(h -> h.docId().equals(id)),
              () -> "'" + word + "' " + codePoints(word) + " does not find " + id + ": " + texts.get(id));
          for (SearchHit h : hits) {
            String source = texts.get(h.docId());
            assertTrue(source != null && source.contains(h.text()),
                () -> h.chunkId() + " stores text that is not in its document: «" + h.text() + "»");
          }
          searched++;
          supplementary += word.codePoints().anyMatch(Character::isSupplementaryCodePoint) ? 1 : 0;
        }
      }
    }
    assertTrue(searched > 200, "words searched: " + searched);
    assertTrue(supplementary > 10, "words with supplementary characters searched: " + supplementary);
  }

  private static boolean hasTerms(Analyzer analyzer, String text) {
    try (TokenStream ts = analyzer.tokenStream("text", text)) {
      ts.reset();
      boolean any = ts.incrementToken();
      while (ts.incrementToken()) {
        // drain
      }
      ts.end();
      return any;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String codePoints(String s) {
    StringBuilder sb = new StringBuilder("[");
    s.codePoints().forEach(cp -> sb.append(sb.length() > 1 ? " " : "").append("U+").append(Integer.toHexString(cp)));
    return sb.append(']').toString();
  }
}
