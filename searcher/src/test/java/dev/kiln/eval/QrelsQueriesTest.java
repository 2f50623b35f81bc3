package dev.kiln.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QrelsQueriesTest {

  @Test
  void qrelsWithHeader(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("test.tsv");
    Files.writeString(file, "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq2\td3\t1\n");
    Qrels qrels = Qrels.read(file);
    assertEquals(List.of("q1", "q2"), List.copyOf(qrels.queryIds()));
    assertEquals(Map.of("d1", 2, "d2", 0), qrels.judgments("q1"));
    assertEquals(Map.of("d3", 1), qrels.judgments("q2"));
    assertEquals(Map.of(), qrels.judgments("q9"));
    assertEquals(2, qrels.size());
  }

  @Test
  void qrelsWithoutHeaderAndWithBlankLinesAndCrLf() throws IOException {
    Qrels qrels = Qrels.parse(new StringReader("q1\td1\t1\r\n\r\nq1\td2\t3\r\n"), "inline");
    assertEquals(Map.of("d1", 1, "d2", 3), qrels.judgments("q1"));
  }

  @Test
  void malformedQrelsNameTheLine() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> Qrels.parse(new StringReader("q1\td1\t1\nq1\td2\n"), "x.tsv"));
    assertTrue(e.getMessage().startsWith("x.tsv:2:"), e.getMessage());
    // Only the first line may be a header.
    assertThrows(ConfigException.class,
        () -> Qrels.parse(new StringReader("q1\td1\t1\nq1\td2\thigh\n"), "x.tsv"));
  }

  @Test
  void queriesFromJsonLines(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("queries.jsonl");
    Files.writeString(file, """
        {"_id": "q1", "text": "what is a volcano?", "metadata": {}}

        {"_id": 42, "text": "numeric \\"id\\""}
        """);
    Queries queries = Queries.read(file);
    assertEquals(List.of("q1", "42"), List.copyOf(queries.ids()));
    assertEquals("what is a volcano?", queries.text("q1"));
    assertEquals("numeric \"id\"", queries.text("42"));
    assertNull(queries.text("q2"));
    assertEquals(2, queries.size());
  }

  @Test
  void malformedQueriesNameTheLine() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> Queries.parse(new StringReader("{\"_id\": \"q1\"}\n"), "q.jsonl"));
    assertTrue(e.getMessage().startsWith("q.jsonl:1:"), e.getMessage());
    assertThrows(ConfigException.class,
        () -> Queries.parse(new StringReader("not json\n"), "q.jsonl"));
  }
}
