package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.node.POJONode;
import dev.kiln.config.IngestConfig;
import dev.kiln.model.DocumentFingerprint;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An incremental build takes an unchanged Parquet row's fingerprint from the row as read, its text
 * hashed from the file's UTF-8 bytes ({@link RecordParser#fingerprint}); it must be the fingerprint of
 * the document the same row parses into, or a changed row would be kept stale (or an unchanged one
 * rewritten).
 */
class RowFingerprintTest {
  @TempDir Path dir;

  private static final String SETTINGS = "settings-fp";

  /** The text column is raw bytes, so that a file can hold malformed UTF-8 as real files do. */
  static final Schema SCHEMA = SchemaBuilder.record("Row").fields()
      .optionalString("_id")
      .optionalString("title")
      .name("text").type().optional().bytesType()
      .optionalString("tenant")
      .name("metadata").type().optional().map().values().stringType()
      .name("embedding").type().optional().array().items().floatType()
      .endRecord();

  private record Row(String id, String title, byte[] text, List<Float> vector) {}

  private Path write(String name, List<Row> rows) throws Exception {
    Path sub = Files.createDirectories(dir.resolve("2026").resolve(name));
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(
        new LocalOutputFile(sub.resolve("part.parquet"))).withSchema(SCHEMA).build()) {
      int i = 0;
      for (Row row : rows) {
        GenericRecord r = new GenericData.Record(SCHEMA);
        r.put("_id", row.id());
        r.put("title", row.title());
        r.put("text", row.text() == null ? null : ByteBuffer.wrap(row.text()));
        r.put("tenant", i % 2 == 0 ? "acme" : "globex");
        r.put("metadata", Map.of("lang", i % 3 == 0 ? "en" : "de", "row", String.valueOf(i)));
        r.put("embedding", row.vector());
        w.write(r);
        i++;
      }
    }
    return sub;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private RecordParser parser(Consumer<IngestConfig> settings) {
    IngestConfig c = new IngestConfig();
    c.metadataFields = Map.of("tenant", "tenant");
    c.pathPatterns = List.of("^(?<year>\\d{4})/(?<part>[^/]+)/");
    settings.accept(c);
    return new RecordParser(List.of(LocalSourceFile.uri(dir)), c,
        new SuppliedVectors(2, true, 1e-3));
  }

  private static List<RawRecord> read(Path sub, String textField) throws IOException {
    return LocalCorpus.read(InputFormat.AUTO, new ReadOptions(1 << 20, 1 << 20, "embedding", textField), sub);
  }

  @Test
  void aRowsFingerprintIsTheFingerprintOfTheDocumentItParsesInto() throws Exception {
    List<Row> rows = new ArrayList<>();
    String[] texts = {"plain ascii text of a row", "Zürich – α-synuclein 中文 😀 and more words here",
        "a literal replacement character \uFFFD is text too", "x"};
    for (int i = 0; i < texts.length; i++) {
      rows.add(new Row("r" + i, i == 3 ? null : "Title " + i, utf8(texts[i]), List.of(0.6f, 0.8f)));
    }
    rows.add(new Row("blank-title", "   ", utf8("text under a blank title"), List.of(0.8f, 0.6f)));
    rows.add(new Row("no-vector", "t", utf8("a row without its vector"), null));
    List<RawRecord> read = read(write("good", rows), "text");
    RecordParser parser = parser(c -> {});
    assertEquals(rows.size(), read.size());
    for (RawRecord raw : read) {
      POJONode node = assertInstanceOf(POJONode.class, raw.row().get("text"), "the text stays as read");
      assertInstanceOf(Utf8Text.class, node.getPojo());
      byte[] fp = parser.fingerprint(raw, SETTINGS);
      assertNotNull(fp, raw.payload());
      assertArrayEquals(DocumentFingerprint.of(parser.parse(raw), SETTINGS), fp, raw.payload());
    }
    // the document's text is the file's, decoded
    RawRecord unicode = read.stream().filter(r -> r.payload().contains("\"r1\"")).findFirst().orElseThrow();
    assertEquals(texts[1], parser.parse(unicode).text());
    assertEquals("2026", parser.parse(unicode).metadata().get("year"), "path metadata is in the fingerprint");
  }

  @Test
  void malformedTextFallsBackToParsingAndRowsThatWouldBeQuarantinedHaveNoFingerprint() throws Exception {
    List<Row> rows = List.of(
        new Row("bad-utf8", "t", new byte[] {'o', 'k', ' ', (byte) 0xC3, ' ', (byte) 0xED, (byte) 0xA0, (byte) 0x80},
            List.of(0.6f, 0.8f)),
        new Row(null, "t", utf8("no id"), List.of(0.6f, 0.8f)),
        new Row("empty", " ", utf8(" \t "), List.of(0.6f, 0.8f)),
        new Row("empty-ideographic", null, utf8("\u3000"), List.of(0.6f, 0.8f)),
        new Row("not-unit", "t", utf8("vector too long"), List.of(0.9f, 0.9f)),
        new Row("nan", "t", utf8("vector with NaN"), List.of(Float.NaN, 0.8f)));
    List<RawRecord> read = read(write("bad", rows), "text");
    RecordParser parser = parser(c -> {});
    for (RawRecord raw : read) {
      assertNull(parser.fingerprint(raw, SETTINGS), raw.payload());
    }
    RawRecord malformed = read.stream().filter(r -> r.payload().contains("bad-utf8")).findFirst().orElseThrow();
    assertEquals(new String(rows.get(0).text(), StandardCharsets.UTF_8), parser.parse(malformed).text(),
        "decoded as Java decodes it, replacement characters and all");
    for (RawRecord raw : read) {
      if (!raw.payload().contains("bad-utf8")) {
        assertThrows(MalformedRecordException.class, () -> parser.parse(raw), raw.payload());
      }
    }
  }

  @Test
  void rowsWhoseTextWasNotKeptAsReadAreLeftToTheParser() throws Exception {
    Path sub = write("plain", List.of(new Row("p", "t", utf8("text"), List.of(0.6f, 0.8f))));
    RawRecord raw = read(sub, null).get(0);
    assertNull(parser(c -> {}).fingerprint(raw, SETTINGS), "no text column kept (a changelog row, a JSON line)");
    RawRecord json = RawRecord.of("file:/c/a.jsonl", 0, InputFormat.JSONL, "{\"_id\": \"j\", \"text\": \"t\"}");
    assertNull(parser(c -> {}).fingerprint(json, SETTINGS));
    // the id column kept as the text: still the parsed document's fingerprint
    RecordParser idIsText = parser(c -> c.idField = "text");
    RawRecord same = read(sub, "text").get(0);
    assertArrayEquals(DocumentFingerprint.of(idIsText.parse(same), SETTINGS), idIsText.fingerprint(same, SETTINGS));
  }

  @Test
  void theTooLargeLimitStillCountsCharactersNotBytes() throws Exception {
    String han = "中".repeat(300); // 300 characters, 900 bytes
    Path sub = write("large", List.of(new Row("fits", "", utf8(han), List.of(0.6f, 0.8f)),
        new Row("over", "", utf8(han + "x".repeat(201)), List.of(0.6f, 0.8f))));
    List<RawRecord> read = LocalCorpus.read(InputFormat.AUTO, new ReadOptions(500, 1 << 20, "embedding", "text"), sub);
    assertEquals(2, read.size());
    assertNull(read.get(0).problem(), "900 bytes but 300 characters, within 500");
    assertEquals(QuarantineReason.TOO_LARGE, read.get(1).problem(), "over 500 characters with the other text columns");
  }
}
