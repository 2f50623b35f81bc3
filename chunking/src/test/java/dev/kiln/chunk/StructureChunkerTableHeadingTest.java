package dev.kiln.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ChunkerConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.ContentType;
import dev.kiln.model.Document;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A heading over a table whose first row fits under the hard cap with the header but not with the
 * heading too (found by {@link ChunkerPropertiesTest} under a random base seed): the heading used to
 * be emitted with the header, over the size and not flagged, and the row then lost its header.
 */
class StructureChunkerTableHeadingTest {
  private static final String DOC = """
      ## überprüfung parallel tokenizer tokenizer
      | key | value |
      | --- | --- |
      | shard vectorisation a | 8158 |
      | is vectorisation embedding | 3921 |
      """;
  private static ModelTokenizer tokenizer;

  @BeforeAll
  static void open() {
    tokenizer = ModelTokenizer.open(ModelRegistry.resolve(ModelRegistry.DEFAULT_MODEL));
  }

  @AfterAll
  static void close() {
    tokenizer.close();
  }

  @Test
  void theHeadingGoesAloneAndEveryTablePartKeepsItsHeaderWithinTheCaps() {
    ChunkerConfig c = new ChunkerConfig();
    c.size = 17;
    c.overlap = 3;
    c.hardCap = 34;
    List<Chunk> chunks = new DocumentChunker(tokenizer, c)
        .cut(new Document("t.md", "", DOC, Map.of(), "mem:", ContentType.MARKDOWN)).chunks();
    assertEquals("## überprüfung parallel tokenizer tokenizer", chunks.get(0).text().strip());
    boolean rowSeen = false;
    for (Chunk ch : chunks) {
      assertTrue(ch.tokens() <= c.size || ch.oversize(), ch.chunkId() + " over the size, not flagged: " + ch.text());
      assertTrue(ch.tokens() <= c.hardCap, ch.chunkId() + " over the hard cap");
      if (ch.text().startsWith("| ")) {
        assertTrue(ch.text().startsWith("| key | value |\n| --- | --- |"), "a part lost its header: " + ch.text());
        rowSeen |= ch.text().contains("| shard vectorisation a | 8158 |");
      }
    }
    assertTrue(rowSeen, "the first row is in a part with the header: " + chunks);
  }
}
