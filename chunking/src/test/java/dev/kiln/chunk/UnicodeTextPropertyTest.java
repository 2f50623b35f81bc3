package dev.kiln.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ChunkerConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.ContentType;
import dev.kiln.model.Document;
import dev.kiln.testing.RandomUnicodeText;
import dev.kiln.testing.TestSeeds;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Text is never altered, for any Unicode: over seeded random documents of every plane (emoji and
 * their sequences, CJK Extension B, mathematical letters, combining marks, CRLF, a byte-order mark,
 * control and zero-width characters), cut by every strategy (window, recursive, Markdown and HTML
 * structure, each also under parent-child chunking) with both kinds of tokenizer (the default model's
 * English WordPiece and the Chinese model's), every chunk's text is exactly the source between its
 * offsets, its offsets never split a surrogate pair, chunks start in order, and every character that
 * is not whitespace lies in some chunk. The source is the document's text, or for HTML the text
 * extracted from the markup.
 */
@ExtendWith(TestSeeds.class)
class UnicodeTextPropertyTest {
  static final int DOCS = 30;
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

  @Test
  void theIssuesExampleKeepsItsLastWord() {
    Document doc = new Document("b", "", "emoji 🚀 rocket gammaend", Map.of(), "mem:");
    for (ModelTokenizer tokenizer : List.of(english, chinese)) {
      for (String strategy : List.of(ChunkerConfig.WINDOW, ChunkerConfig.RECURSIVE)) {
        ChunkerConfig c = new ChunkerConfig();
        c.strategy = strategy;
        c.size = 64;
        c.overlap = 8;
        List<Chunk> chunks = new DocumentChunker(tokenizer, c).cut(doc).chunks();
        assertEquals(1, chunks.size(), strategy);
        assertEquals("emoji 🚀 rocket gammaend", chunks.get(0).text(), tokenizer.spec().name() + " " + strategy);
      }
    }
  }

  @Test
  void tokenSpansAreStringIndicesAfterSupplementaryCharacters() {
    String text = "a🚀b 𠀀𠀁 c";
    for (ModelTokenizer tokenizer : List.of(english, chinese)) {
      int[][] spans = tokenizer.tokenSpans(text);
      int last = spans[1].length - 1;
      assertEquals(text.length(), spans[1][last], tokenizer.spec().name() + ": the last token ends at the end");
      assertEquals("c", text.substring(spans[0][last], spans[1][last]), tokenizer.spec().name());
    }
  }

  @Test
  void aCutBetweenTwoTokensKeepsTheCombiningMarkAndControlCharactersBetweenThem() {
    // The normaliser drops U+0301 and U+0007 without a token; windows of one token must still cover them.
    String text = "\uFEFFcafe\u0301 x\u0007y z";
    ChunkerConfig c = new ChunkerConfig();
    c.strategy = ChunkerConfig.WINDOW;
    c.size = 1;
    c.overlap = 0;
    Document doc = new Document("d", "", text, Map.of(), "mem:");
    List<Chunk> chunks = new DocumentChunker(english, c).cut(doc).chunks();
    assertCovers(text, chunks, "window of 1");
    assertTrue(chunks.get(0).text().startsWith("\uFEFF"), "the byte-order mark is in the first chunk");
    assertTrue(chunks.stream().anyMatch(ch -> ch.text().endsWith("e\u0301")), "the accent stays on its letter");
  }

  @Test
  void lonelySurrogatesNeitherCrashTheTokenizerNorShiftItsOffsets() {
    String text = "x\uD800y z \uDC00w end";
    for (ModelTokenizer tokenizer : List.of(english, chinese)) {
      int[][] spans = tokenizer.tokenSpans(text);
      for (int i = 0; i < spans[0].length; i++) {
        assertTrue(0 <= spans[0][i] && spans[0][i] < spans[1][i] && spans[1][i] <= text.length(),
            tokenizer.spec().name() + ": span " + spans[0][i] + ".." + spans[1][i] + " of " + text.length());
      }
      int last = spans[1].length - 1;
      assertEquals("end", text.substring(spans[0][last], spans[1][last]), tokenizer.spec().name());
    }
  }

  @Test
  void everyStrategyAndTokenizerCutsRandomUnicodeIntoExactSubstringsThatCoverIt() {
    int supplementaryChunks = 0;
    for (int seed = 1; seed <= DOCS; seed++) {
      for (ModelTokenizer tokenizer : List.of(english, chinese)) {
        for (String strategy : List.of(ChunkerConfig.WINDOW, ChunkerConfig.RECURSIVE, ChunkerConfig.MARKDOWN,
            ChunkerConfig.HTML)) {
          for (boolean parents : List.of(false, true)) {
            RandomUnicodeText gen = new RandomUnicodeText(TestSeeds.derive("unicode/" + seed + "/" + strategy));
            ChunkerConfig c = config(gen.random(), strategy, parents);
            Document doc = document(gen, strategy, seed);
            String source = doc.contentType() == ContentType.HTML ? HtmlStructure.parse(doc.text()).text() : doc.text();
            String where = tokenizer.spec().name() + " " + strategy + (parents ? " with parents" : "") + " seed "
                + seed + " (base " + TestSeeds.baseSeed() + ") size " + c.size + "/" + c.overlap;
            List<Chunk> chunks = new DocumentChunker(tokenizer, c).cut(doc).chunks();
            for (Chunk ch : chunks) {
              assertEquals(source.substring(ch.startChar(), ch.endChar()), ch.text(), where + " " + ch.chunkId());
              assertFalse(splitsPair(source, ch.startChar()) || splitsPair(source, ch.endChar()),
                  where + " " + ch.chunkId() + " cuts a surrogate pair");
              supplementaryChunks += ch.text().codePoints().anyMatch(Character::isSupplementaryCodePoint) ? 1 : 0;
            }
            for (int i = 1; i < chunks.size(); i++) {
              assertTrue(chunks.get(i - 1).startChar() <= chunks.get(i).startChar(), where + ": chunk " + i
                  + " starts before its predecessor");
            }
            assertCovers(source, chunks, where);
          }
        }
      }
    }
    assertTrue(supplementaryChunks > DOCS, "the documents must hold supplementary characters: " + supplementaryChunks);
  }

  private static ChunkerConfig config(Random random, String strategy, boolean parents) {
    ChunkerConfig c = new ChunkerConfig();
    c.strategy = strategy;
    c.size = 4 + random.nextInt(40);
    c.overlap = random.nextInt(c.size / 3 + 1);
    c.hardCap = c.size * 2 + random.nextInt(c.size);
    c.parents.enabled = parents;
    c.parents.size = c.size * 3;
    return c;
  }

  /** A document of the kind {@code strategy} cuts: plain text, Markdown with structure, or HTML. */
  private static Document document(RandomUnicodeText gen, String strategy, int seed) {
    Random random = gen.random();
    String id = "u" + seed;
    return switch (strategy) {
      case ChunkerConfig.MARKDOWN -> {
        StringBuilder md = new StringBuilder();
        for (int s = 0; s < 1 + random.nextInt(4); s++) {
          md.append("#".repeat(1 + random.nextInt(3))).append(' ').append(gen.text(1 + random.nextInt(4))).append("\n\n");
          md.append(gen.text(5 + random.nextInt(40))).append("\n\n");
          if (random.nextBoolean()) {
            md.append("- ").append(gen.text(3)).append("\n- ").append(gen.text(4)).append("\n\n");
          }
        }
        yield new Document(id + ".md", "", md.toString(), Map.of(), "mem:", ContentType.MARKDOWN);
      }
      case ChunkerConfig.HTML -> {
        StringBuilder html = new StringBuilder("<html><head><title>t</title></head><body>");
        for (int s = 0; s < 1 + random.nextInt(4); s++) {
          html.append("<h2>").append(escape(gen.text(2))).append("</h2><p>").append(escape(gen.text(5 + random.nextInt(40))))
              .append("</p>");
        }
        yield new Document(id + ".html", "", html.append("</body></html>").toString(), Map.of(), "mem:",
            ContentType.HTML);
      }
      default -> new Document(id, "", gen.text(5 + random.nextInt(120)), Map.of(), "mem:");
    };
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  private static boolean splitsPair(String s, int at) {
    return at > 0 && at < s.length() && Character.isHighSurrogate(s.charAt(at - 1))
        && Character.isLowSurrogate(s.charAt(at));
  }

  static void assertCovers(String source, List<Chunk> chunks, String where) {
    boolean[] covered = new boolean[source.length()];
    for (Chunk ch : chunks) {
      for (int k = ch.startChar(); k < ch.endChar(); k++) {
        covered[k] = true;
      }
    }
    for (int k = 0; k < source.length(); k++) {
      if (!Character.isWhitespace(source.charAt(k)) && !covered[k]) {
        int at = k;
        throw new AssertionError(where + ": character " + at + " (U+" + Integer.toHexString(source.codePointAt(at))
            + ") is in no chunk: «" + source.substring(Math.max(0, at - 20), Math.min(source.length(), at + 20)) + "»");
      }
    }
  }
}
