package dev.kiln.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The window chunker with the bundled model's real tokenizer. */
class TokenWindowChunkerTest {
  static ModelTokenizer tokenizer;

  @BeforeAll
  static void open() {
    tokenizer = ModelTokenizer.open(ModelRegistry.resolve(ModelRegistry.DEFAULT_MODEL));
  }

  @AfterAll
  static void close() {
    tokenizer.close();
  }

  static String randomText(Random r, int words) {
    String[] vocab = {"snapshot", "shard", "the", "of", "Lucene", "vectorisation", "HNSW", "graph,",
        "embedding.", "tokenizer", "überprüfung", "naïve", "42", "x", "(parallel)", "batch-mode", "\n\n"};
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < words; i++) {
      sb.append(vocab[r.nextInt(vocab.length)]).append(r.nextInt(5) == 0 ? "  " : " ");
    }
    return sb.toString();
  }

  @Test
  void chunksRespectSizeOverlapAndCoverEveryToken() {
    Random random = new Random(7L);
    for (int trial = 0; trial < 40; trial++) {
      int size = 8 + random.nextInt(40);
      int overlap = random.nextInt(size / 2);
      String text = randomText(random, random.nextInt(300));
      TokenWindowChunker chunker = new TokenWindowChunker(tokenizer, size, overlap);
      List<Chunk> chunks = chunker.chunk(new Document("d" + trial, "", text, Map.of(), "mem:"));
      int[][] spans = tokenizer.tokenSpans(text);
      int tokens = spans[0].length;
      int[] coveredBy = new int[tokens];
      for (int i = 0; i < chunks.size(); i++) {
        Chunk c = chunks.get(i);
        assertEquals("d" + trial + "#" + i, c.chunkId());
        assertEquals(text.substring(c.startChar(), c.endChar()), c.text());
        assertTrue(c.tokens() <= size, "chunk of " + c.tokens() + " tokens > " + size);
        for (int t = 0; t < tokens; t++) {
          if (spans[0][t] >= c.startChar() && spans[1][t] <= c.endChar()) {
            coveredBy[t]++;
          }
        }
        if (i > 0) {
          Chunk prev = chunks.get(i - 1);
          int shared = 0;
          for (int t = 0; t < tokens; t++) {
            boolean inPrev = spans[0][t] >= prev.startChar() && spans[1][t] <= prev.endChar();
            boolean inThis = spans[0][t] >= c.startChar() && spans[1][t] <= c.endChar();
            if (inPrev && inThis) {
              shared++;
            }
          }
          assertEquals(overlap, shared, "overlap of chunks " + (i - 1) + "/" + i);
        }
      }
      for (int t = 0; t < tokens; t++) {
        assertTrue(coveredBy[t] >= 1, "token " + t + " is in no chunk");
      }
    }
  }

  @Test
  void reTokenisingAChunkGivesAtMostTheBudget() {
    String text = randomText(new Random(11L), 400);
    for (Chunk c : new TokenWindowChunker(tokenizer, 32, 4).chunk(new Document("d", "", text, Map.of(), "mem:"))) {
      // Subword tokenisation of a substring can differ at the edges by at most the split word.
      assertTrue(tokenizer.countTokens(c.text()) <= 32 + 2, c.text());
    }
  }

  @Test
  void sameDocumentGivesSameChunks() {
    Document d = new Document("same", "T", randomText(new Random(3L), 200), Map.of("k", "v"), "mem:");
    TokenWindowChunker chunker = new TokenWindowChunker(tokenizer, 20, 5);
    assertEquals(chunker.chunk(d), chunker.chunk(d));
    assertEquals(Map.of("k", "v"), chunker.chunk(d).get(0).metadata());
  }
}
