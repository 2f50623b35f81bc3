package dev.kiln.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import dev.kiln.testing.TestSeeds;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link Chunker} contract, run against every implementation: each subclass only says how to make
 * one and what documents it cuts. Randomised cases draw seeded documents and settings from
 * {@link TestSeeds} ({@code -Dkiln.tests.seed}; a failure names the seed that repeats it).
 *
 * <p>The contract: chunk {@code i} has id {@code docId#i} and ordinal {@code i}, dense from 0; its
 * text is the source span its offsets name (the source being the document's text, or for HTML the
 * text extracted from the markup), except that a table part after the first starts with the repeated
 * header row, so its text ends with its span; spans start in order and two neighbours share at most
 * {@code overlap} tokens; every non-whitespace character of the source is in some chunk; no chunk has
 * more than {@code size} tokens unless the chunker keeps indivisible blocks whole, and then only a
 * chunk flagged oversize and within the hard cap; the same document and settings give the same chunks,
 * from the same chunker or a new one; a blank document gives no chunk, or with a title one empty chunk
 * {@code docId#0} so the title stays findable.
 */
@ExtendWith(TestSeeds.class)
public abstract class ChunkerContract {
  /** Tokens are the default model's, as a build counts them. */
  protected static ModelTokenizer tokenizer;

  @BeforeAll
  static void openTokenizer() {
    tokenizer = ModelTokenizer.open(ModelRegistry.resolve(ModelRegistry.DEFAULT_MODEL));
  }

  @AfterAll
  static void closeTokenizer() {
    tokenizer.close();
  }

  /** A chunker of {@code size} tokens, {@code overlap} tokens of overlap and a hard cap (>= size). */
  protected abstract Chunker chunker(int size, int overlap, int hardCap);

  /** A document of the kind this chunker cuts, with this text. */
  protected abstract Document document(String id, String title, String text);

  /** A random text of that kind (plain text, Markdown, HTML). */
  protected abstract String randomText(RandomDocuments gen);

  /** The text the chunks' offsets refer to. */
  protected String source(Document doc) {
    return doc.text();
  }

  /** Whether the chunker keeps indivisible blocks (code, tables) whole beyond the size, flagged oversize. */
  protected boolean keepsBlocksWhole() {
    return false;
  }

  /** Random settings as a build could have them: size 16..79, overlap below a third of it. */
  private record Settings(int size, int overlap, int hardCap) {
    static Settings draw(Random random) {
      int size = 16 + random.nextInt(64);
      return new Settings(size, random.nextInt(size / 3), size * 2 + random.nextInt(size));
    }

    Chunker of(ChunkerContract contract) {
      return contract.chunker(size, overlap, hardCap);
    }
  }

  private Document randomDocument(Random random) {
    String text = randomText(new RandomDocuments(random.nextLong()));
    return document("doc-" + Long.toHexString(random.nextLong() & 0xffff), random.nextBoolean() ? "" : "Title", text);
  }

  @RepeatedTest(25)
  void chunkIdsAreDocIdHashOrdinalAndTextsAreTheirSourceSpans(Random random) {
    Settings s = Settings.draw(random);
    Document doc = randomDocument(random);
    String source = source(doc);
    List<Chunk> chunks = s.of(this).chunk(doc);
    for (int i = 0; i < chunks.size(); i++) {
      Chunk c = chunks.get(i);
      String where = s + " " + c.chunkId();
      assertEquals(doc.id() + "#" + i, c.chunkId(), where);
      assertEquals(i, c.ordinal(), where);
      assertEquals(doc.id(), c.docId(), where);
      assertEquals(doc.title(), c.title(), where);
      assertTrue(0 <= c.startChar() && c.startChar() <= c.endChar() && c.endChar() <= source.length(),
          where + ": offsets " + c.startChar() + ".." + c.endChar() + " outside the source of " + source.length());
      String span = source.substring(c.startChar(), c.endChar());
      if (keepsBlocksWhole()) {
        assertTrue(c.text().endsWith(span), where + ": text does not end with its source span");
      } else {
        assertEquals(span, c.text(), where + ": text is not its source span");
      }
      // A blank source gives at most the title chunk (blankDocumentsGiveNoChunkOrOneTitleChunk).
      assertTrue(source.isBlank() || !c.text().isBlank(), where + ": a blank chunk from a document with text");
    }
  }

  @RepeatedTest(25)
  void noChunkIsOverTheSizeExceptAFlaggedWholeBlockWithinTheHardCap(Random random) {
    Settings s = Settings.draw(random);
    for (Chunk c : s.of(this).chunk(randomDocument(random))) {
      String where = s + " " + c.chunkId() + " (" + c.tokens() + " tokens)";
      if (keepsBlocksWhole()) {
        assertTrue(c.tokens() <= s.size() || c.oversize(), where + ": over the size and not flagged oversize");
        assertTrue(!c.oversize() || c.tokens() <= s.hardCap(), where + ": over the hard cap");
      } else {
        assertTrue(c.tokens() <= s.size(), where + ": over the size");
        assertFalse(c.oversize(), where + ": flagged oversize by a chunker that keeps no block whole");
      }
    }
  }

  @RepeatedTest(25)
  void everyCharacterIsInAChunkAndNeighboursOverlapAtMostOverlap(Random random) {
    Settings s = Settings.draw(random);
    Document doc = randomDocument(random);
    String source = source(doc);
    List<Chunk> chunks = s.of(this).chunk(doc);
    boolean[] covered = new boolean[source.length()];
    for (Chunk c : chunks) {
      for (int k = c.startChar(); k < c.endChar(); k++) {
        covered[k] = true;
      }
    }
    for (int k = 0; k < source.length(); k++) {
      if (!Character.isWhitespace(source.charAt(k))) {
        int at = k;
        assertTrue(covered[k], () -> s + ": character " + at + " is in no chunk: "
            + source.substring(Math.max(0, at - 30), Math.min(source.length(), at + 30)));
      }
    }
    TokenSpans spans = TokenSpans.of(tokenizer, source);
    for (int i = 1; i < chunks.size(); i++) {
      Chunk prev = chunks.get(i - 1);
      Chunk next = chunks.get(i);
      assertTrue(prev.startChar() <= next.startChar(), s + ": chunk " + i + " starts before chunk " + (i - 1));
      int shared = 0;
      for (int t = spans.firstAtOrAfter(next.startChar()); t < spans.size() && spans.end(t) <= prev.endChar(); t++) {
        shared++;
      }
      assertTrue(shared <= s.overlap(), s + ": chunks " + (i - 1) + " and " + i + " share " + shared + " tokens");
    }
  }

  @RepeatedTest(10)
  void theSameDocumentGivesTheSameChunksFromAnyInstance(Random random) {
    Settings s = Settings.draw(random);
    Document doc = randomDocument(random);
    Chunker chunker = s.of(this);
    List<Chunk> first = chunker.chunk(doc);
    assertEquals(first, chunker.chunk(doc), s + ": same chunker, second call");
    assertEquals(first, s.of(this).chunk(doc), s + ": a new chunker with the same settings");
  }

  @Test
  void blankDocumentsGiveNoChunkOrOneTitleChunk() {
    Chunker chunker = chunker(32, 4, 64);
    for (String blank : List.of("", " ", "\n\n \t\n")) {
      assertEquals(List.of(), chunker.chunk(document("b", "", blank)), "'" + blank + "' without a title");
      List<Chunk> titled = chunker.chunk(document("b", "A title", blank));
      assertEquals(1, titled.size(), "'" + blank + "' with a title");
      assertEquals("b#0", titled.get(0).chunkId());
      assertEquals("A title", titled.get(0).title());
      assertEquals("", titled.get(0).text());
    }
  }

  @Test
  void idsKeepWhateverTheDocumentIdHolds() {
    String id = "dir/naïve file#2.md";
    List<Chunk> chunks = chunker(16, 2, 32).chunk(document(id, "", "one two three four five. ".repeat(12)));
    assertTrue(chunks.size() > 1, "several chunks: " + chunks.size());
    for (int i = 0; i < chunks.size(); i++) {
      assertEquals(id + "#" + i, chunks.get(i).chunkId());
    }
  }

  /** Documents without markup: paragraphs of English with some Chinese sentences. */
  static Document text(String id, String title, String text) {
    return new Document(id, title, text, Map.of(), "mem:");
  }
}
