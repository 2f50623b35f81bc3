package dev.kiln.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kiln.config.ChunkerConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.ContentType;
import dev.kiln.model.Document;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Golden files: a Markdown and an HTML page with nested headings, lists, code, a table over the hard
 * cap and Chinese, cut with small sizes so that every rule shows. The expected chunks were reviewed
 * by hand; rerun with {@code -Dkiln.golden.update=true} to rewrite them after a deliberate change,
 * and review the diff.
 */
class StructureChunkerGoldenTest {
  static ModelTokenizer tokenizer;

  @BeforeAll
  static void open() {
    tokenizer = ModelTokenizer.open(ModelRegistry.resolve(ModelRegistry.DEFAULT_MODEL));
  }

  @AfterAll
  static void close() {
    tokenizer.close();
  }

  static ChunkerConfig config() {
    ChunkerConfig c = new ChunkerConfig();
    c.size = 48;
    c.overlap = 8;
    c.hardCap = 96;
    return c;
  }

  @Test
  void markdown() throws IOException {
    check("guide.md", ContentType.MARKDOWN);
  }

  @Test
  void html() throws IOException {
    check("guide.html", ContentType.HTML);
  }

  private static void check(String name, ContentType type) throws IOException {
    String source = resource("/golden/" + name);
    Document doc = new Document(name, "Kiln Guide", source, Map.of(), "mem:" + name, type);
    String actual = render(new DocumentChunker(tokenizer, config()).cut(doc));
    String expectedName = name + ".chunks.txt";
    if (Boolean.getBoolean("kiln.golden.update")) {
      Files.writeString(Path.of("src/test/resources/golden").resolve(expectedName), actual);
    }
    assertEquals(resource("/golden/" + expectedName), actual);
  }

  static String render(DocumentChunker.Result r) {
    StringBuilder sb = new StringBuilder();
    for (Chunk c : r.chunks()) {
      sb.append("=== ").append(c.chunkId()).append(" [").append(c.breadcrumb()).append("] tokens=")
          .append(c.tokens()).append(c.oversize() ? " OVERSIZE" : "").append(" lang=").append(c.language())
          .append('\n').append(c.text()).append('\n');
    }
    return sb.toString();
  }

  static String resource(String path) throws IOException {
    try (InputStream in = StructureChunkerGoldenTest.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IOException("missing test resource " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
