package dev.kiln.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ChunkerConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.ContentType;
import dev.kiln.model.Document;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The chunking rule for records with a precomputed vector: one chunk, the whole text, the vector kept. */
class SuppliedVectorChunkTest {
  static ModelTokenizer tokenizer;

  @BeforeAll
  static void open() {
    tokenizer = ModelTokenizer.open(ModelRegistry.resolve("all-minilm-l6-v2-q"));
  }

  @AfterAll
  static void close() {
    tokenizer.close();
  }

  @Test
  void aDocumentWithAVectorIsOneChunkOfItsWholeTextEvenPastTheModelsMaxTokens() {
    ChunkerConfig config = new ChunkerConfig();
    config.parents.enabled = true; // does not apply to supplied vectors either
    DocumentChunker chunker = new DocumentChunker(tokenizer, config);
    String text = "Tidal bores form where a rising tide meets a funnel-shaped estuary. ".repeat(40);
    float[] v = {0.6f, 0.8f};
    DocumentChunker.Result cut = chunker.cut(
        new Document("d", "Bores", text, Map.of("tenant", "a"), "file:/c.jsonl", ContentType.TEXT, v));
    assertEquals(1, cut.chunks().size());
    assertTrue(cut.parents().isEmpty());
    Chunk c = cut.chunks().get(0);
    assertEquals("d#0", c.chunkId());
    assertEquals(text, c.text());
    assertSame(v, c.vector());
    assertTrue(tokenizer.countTokens(text) > tokenizer.spec().maxTokens(), "the text is past the model's max tokens");
    assertEquals(0, c.tokens(), "a chunk that is never embedded is not tokenized");
    assertFalse(c.contentKey().isEmpty());
    assertNull(c.parentId());
    assertEquals("a", c.metadata().get("tenant"));
    // The same text without a vector is cut as usual.
    assertTrue(chunker.cut(new Document("d", "Bores", text, Map.of(), "file:/c.jsonl")).chunks().size() > 1);
  }
}
