package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IngestConfig;
import dev.kiln.model.Document;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.zip.GZIPOutputStream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Parquet files written with an Avro schema by parquet-avro, read back through Kiln's reader. */
class ParquetRowReaderTest {
  @TempDir Path dir;

  static final Schema SCHEMA = SchemaBuilder.record("Doc").fields()
      .requiredString("doc_id")
      .optionalString("title")
      .requiredString("body")
      .optionalString("tenant")
      .name("metadata").type().optional().map().values().stringType()
      .endRecord();

  /** Writes {@code rows} rows, four per row group. */
  static Path write(Path file, int rows) throws Exception {
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
        .withSchema(SCHEMA).withRowGroupRowCountLimit(4).build()) {
      for (int i = 0; i < rows; i++) {
        GenericRecord r = new GenericData.Record(SCHEMA);
        r.put("doc_id", "p" + i);
        r.put("title", "Title " + i);
        r.put("body", "Body of parquet row " + i + " " + "words ".repeat(50));
        r.put("tenant", i % 2 == 0 ? "acme" : "globex");
        r.put("metadata", Map.of("lang", "en", "row", String.valueOf(i)));
        w.write(r);
      }
    }
    return file;
  }

  static RecordParser parser(Path root) {
    IngestConfig c = new IngestConfig();
    c.idField = "doc_id";
    c.textField = "body";
    return new RecordParser(List.of(LocalSourceFile.uri(root)), c);
  }

  static final Schema VECTORS = SchemaBuilder.record("Vec").fields()
      .requiredString("_id").requiredString("text")
      .name("embedding").type().optional().array().items().floatType()
      .name("doubles").type().optional().array().items().doubleType()
      .endRecord();

  /** Rows with a float list and a double list, in parquet-avro's two-level or three-level list layout. */
  static Path writeVectors(Path file, boolean threeLevel) throws Exception {
    Configuration conf = new Configuration(false);
    conf.setBoolean("parquet.avro.write-old-list-structure", !threeLevel);
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
        .withSchema(VECTORS).withConf(conf).build()) {
      for (int i = 0; i < 3; i++) {
        GenericRecord r = new GenericData.Record(VECTORS);
        r.put("_id", "v" + i);
        r.put("text", "row " + i);
        r.put("embedding", i == 2 ? null : List.of(0.6f, 0.8f * i, 1e-3f));
        r.put("doubles", List.of(0.25, 1e300));
        w.write(r);
      }
    }
    return file;
  }

  @Test
  void theVectorColumnIsDecodedIntoFloatsBesideTheJsonInBothListLayouts() throws Exception {
    for (boolean threeLevel : new boolean[] {false, true}) {
      Path sub = Files.createDirectories(dir.resolve(threeLevel ? "three" : "two"));
      writeVectors(sub.resolve("v.parquet"), threeLevel);
      List<RawRecord> read = LocalCorpus.read(InputFormat.AUTO,
          new ReadOptions(1 << 20, 1 << 20, "embedding", null), sub);
      assertEquals(3, read.size());
      RawRecord v1 = read.stream().filter(r -> r.payload().contains("\"v1\"")).findFirst().orElseThrow();
      assertTrue(Arrays.equals(new float[] {0.6f, 0.8f, 1e-3f}, v1.vector()), threeLevel + " layout");
      assertTrue(!v1.payload().contains("embedding"), "the decoded column is not also in the JSON: " + v1.payload());
      assertTrue(v1.payload().contains("doubles"), "other list columns stay in the JSON: " + v1.payload());
      RawRecord v2 = read.stream().filter(r -> r.payload().contains("\"v2\"")).findFirst().orElseThrow();
      assertNull(v2.vector(), "a row without the column has no vector");
      // The same file read with the doubles as the vector column: a double beyond float range is an infinity.
      List<RawRecord> doubles = LocalCorpus.read(InputFormat.AUTO,
          new ReadOptions(1 << 20, 1 << 20, "doubles", null), sub);
      float[] d = doubles.get(0).vector();
      assertEquals(0.25f, d[0]);
      assertEquals(Float.POSITIVE_INFINITY, d[1]);
    }
  }

  static final Schema NULLABLE_VECTORS = SchemaBuilder.record("Vec").fields()
      .requiredString("_id").requiredString("text")
      .name("embedding").type().optional().array().items().nullable().floatType()
      .endRecord();

  /** Row {@code i}'s list: null, empty, or 1 to 40 numbers, one of them null now and then (three-level only). */
  private static List<Float> listOf(int i, boolean repetitive, boolean nullElements) {
    if (i % 17 == 0) {
      return null;
    }
    Random rnd = new Random(i);
    List<Float> list = new ArrayList<>();
    for (int j = 0; j < (i % 13 == 0 ? 0 : 1 + i % 40); j++) {
      list.add(nullElements && i % 11 == 0 && j == 1 ? null : repetitive ? (j % 3) * 0.25f : rnd.nextFloat());
    }
    return list;
  }

  @Test
  void theVectorColumnIsDecodedAcrossPagesInEveryEncodingLayoutAndPageVersion() throws Exception {
    // Small pages, so that lists straddle page ends; dictionary pages (few distinct numbers) and plain
    // ones; version 1 and 2 data pages; two- and three-level lists with null lists, empty lists and
    // (three-level) null elements.
    int rows = 600;
    for (boolean threeLevel : new boolean[] {false, true}) {
      for (boolean repetitive : new boolean[] {false, true}) {
        for (WriterVersion version
            : WriterVersion.values()) {
          String name = (threeLevel ? "three" : "two") + (repetitive ? "-dict-" : "-plain-") + version;
          Path sub = Files.createDirectories(dir.resolve(name));
          Configuration conf = new Configuration(false);
          conf.setBoolean("parquet.avro.write-old-list-structure", !threeLevel);
          Schema schema = threeLevel ? NULLABLE_VECTORS : VECTORS;
          try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(
              new LocalOutputFile(sub.resolve("v.parquet"))).withSchema(schema).withConf(conf)
              .withPageSize(512).withPageRowCountLimit(7).withDictionaryEncoding(repetitive)
              .withWriterVersion(version).withRowGroupRowCountLimit(250).build()) {
            for (int i = 0; i < rows; i++) {
              GenericRecord r = new GenericData.Record(schema);
              r.put("_id", "v" + i);
              r.put("text", "row " + i);
              r.put("embedding", listOf(i, repetitive, threeLevel));
              w.write(r);
            }
          }
          List<RawRecord> read = LocalCorpus.read(InputFormat.AUTO,
              new ReadOptions(1 << 20, 1 << 20, "embedding", null), sub);
          assertEquals(rows, read.size(), name);
          for (RawRecord r : read) {
            int i = Integer.parseInt(r.payload().replaceAll(".*\"v(\\d+)\".*", "$1"));
            List<Float> expected = listOf(i, repetitive, threeLevel);
            assertNull(r.problem(), name + " row " + i + ": " + r.problem());
            if (expected == null) {
              assertNull(r.vector(), name + " row " + i);
              assertTrue(!r.payload().contains("embedding"), r.payload());
            } else if (expected.contains(null)) {
              assertNull(r.vector(), name + " row " + i);
              String json = expected.stream().map(f -> f == null ? "null" : String.valueOf(f))
                  .collect(Collectors.joining(",", "[", "]"));
              assertTrue(r.payload().contains("\"embedding\":" + json), name + ": " + r.payload() + " vs " + json);
            } else {
              float[] want = new float[expected.size()];
              for (int j = 0; j < want.length; j++) {
                want[j] = expected.get(j);
              }
              assertTrue(Arrays.equals(want, r.vector()),
                  name + " row " + i + ": " + Arrays.toString(r.vector()) + " vs " + expected);
            }
          }
        }
      }
    }
  }

  static final Schema TYPED = SchemaBuilder.record("Typed").fields()
      .requiredString("_id").optionalString("title").requiredString("text")
      .requiredInt("year").requiredFloat("score").requiredDouble("weight").requiredBoolean("public")
      .endRecord();

  @Test
  void aDecodedRowParsesAsItsJsonTextWouldAndAnOversizedRowIsQuarantinedByItsReader() throws Exception {
    Path sub = Files.createDirectories(dir.resolve("typed"));
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(
        new LocalOutputFile(sub.resolve("t.parquet"))).withSchema(TYPED).build()) {
      for (int i = 0; i < 5; i++) {
        GenericRecord r = new GenericData.Record(TYPED);
        r.put("_id", "t" + i);
        r.put("title", i == 1 ? null : "T\u00eftle " + i);
        r.put("text", i == 3 ? "x".repeat(5_000) : "text " + i);
        r.put("year", 1990 + i);
        r.put("score", i == 2 ? Float.NaN : 0.1f * i);
        r.put("weight", 1e-7 * i);
        r.put("public", i % 2 == 0);
        w.write(r);
      }
    }
    IngestConfig c = new IngestConfig();
    c.metadataFields = Map.of("year", "year", "score", "score", "weight", "weight", "public", "public");
    String root = LocalSourceFile.uri(dir);
    RecordParser parser = new RecordParser(List.of(root), c);
    List<RawRecord> read = LocalCorpus.read(InputFormat.AUTO, new ReadOptions(4_000, 1 << 20, null, null), sub);
    assertEquals(5, read.size());
    int rows = 0;
    for (RawRecord r : read) {
      if (r.offset() == 3) {
        assertEquals(QuarantineReason.TOO_LARGE, r.problem(), "5,000 characters of text over a 4,000 limit");
        continue;
      }
      assertTrue(r.row() != null, "handed on decoded");
      Document decoded = parser.parse(r);
      Document fromText = parser.parse(RawRecord.of(r.sourceUri(), r.offset(), InputFormat.PARQUET, r.payload())
          .withSource(r.bytes(), r.modified()));
      assertEquals(fromText.id(), decoded.id());
      assertEquals(fromText.title(), decoded.title());
      assertEquals(fromText.text(), decoded.text());
      assertEquals(fromText.metadata(), decoded.metadata());
      assertEquals(String.valueOf(1990 + r.offset()), decoded.metadata().get("year"), decoded.metadata().toString());
      rows++;
    }
    assertEquals(4, rows);
  }

  static final Schema NULLABLE_ITEMS = SchemaBuilder.record("Vec").fields()
      .requiredString("_id").requiredString("text")
      .name("embedding").type().array().items().nullable().floatType().noDefault()
      .endRecord();

  @Test
  void aListWithANullElementStaysInTheJsonForTheParserAndItsNeighboursAreDecoded() throws Exception {
    // Three-level layout with optional elements: row n0 holds a null in the middle, rows n1 and n2 none.
    Configuration conf = new Configuration(false);
    conf.setBoolean("parquet.avro.write-old-list-structure", false);
    Path sub = Files.createDirectories(dir.resolve("nulls"));
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(
        sub.resolve("n.parquet"))).withSchema(NULLABLE_ITEMS).withConf(conf).build()) {
      for (int i = 0; i < 3; i++) {
        GenericRecord r = new GenericData.Record(NULLABLE_ITEMS);
        r.put("_id", "n" + i);
        r.put("text", "row " + i);
        r.put("embedding", i == 0 ? Arrays.asList(0.6f, null, 0.8f) : List.of(0.6f, 0.8f * i));
        w.write(r);
      }
    }
    List<RawRecord> read = LocalCorpus.read(InputFormat.AUTO,
        new ReadOptions(1 << 20, 1 << 20, "embedding", null), sub);
    RawRecord withNull = read.stream().filter(r -> r.payload().contains("\"n0\"")).findFirst().orElseThrow();
    assertNull(withNull.vector());
    assertTrue(withNull.payload().contains("\"embedding\":[0.6,null,0.8]"), withNull.payload());
    RawRecord clean = read.stream().filter(r -> r.payload().contains("\"n2\"")).findFirst().orElseThrow();
    assertTrue(Arrays.equals(new float[] {0.6f, 1.6f}, clean.vector()), "row after the null row");
    assertTrue(!clean.payload().contains("embedding"), clean.payload());
    // The parser names the null element.
    IngestConfig c = new IngestConfig();
    c.vectorField = "embedding";
    RecordParser parser = new RecordParser(List.of(LocalSourceFile.uri(dir)),
        c, new SuppliedVectors(3, false, 1e-3));
    Assertions.assertThrows(MalformedRecordException.class, () -> parser.parse(withNull));
  }

  @Test
  void aDecodedVectorIsCheckedLikeAParsedOne() throws Exception {
    IngestConfig c = new IngestConfig();
    c.vectorField = "embedding";
    String root = LocalSourceFile.uri(dir);
    RecordParser parser = new RecordParser(List.of(root), c, new SuppliedVectors(2, true, 1e-3));
    RawRecord ok = RawRecord.of(root + "/a.parquet", 4, InputFormat.PARQUET, "{\"_id\": \"a\", \"text\": \"t\"}")
        .withVector(new float[] {0.6f, 0.8f});
    assertTrue(Arrays.equals(new float[] {0.6f, 0.8f}, parser.parse(ok).vector()));
    Map<float[], String> bad = Map.of(new float[] {0.6f, 0.8f, 0f}, QuarantineReason.VECTOR_DIMENSION,
        new float[] {Float.NaN, 0.8f}, QuarantineReason.VECTOR_NOT_FINITE,
        new float[] {0f, 0f}, QuarantineReason.VECTOR_ZERO,
        new float[] {0.6f, 0.9f}, QuarantineReason.VECTOR_NOT_UNIT);
    for (Map.Entry<float[], String> e : bad.entrySet()) {
      MalformedRecordException ex = Assertions.assertThrows(MalformedRecordException.class,
          () -> parser.parse(ok.withVector(e.getKey())));
      assertEquals(e.getValue(), ex.reason());
    }
  }

  @Test
  void anUnreadableRowGroupIsOneQuarantineRecordAndTheOtherGroupsAreRead() throws Exception {
    Path file = write(dir.resolve("broken.parquet"), 12);
    long start;
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      List<BlockMetaData> groups = r.getRowGroups();
      assertEquals(3, groups.size());
      start = groups.get(1).getStartingPos();
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(start);
      raf.write(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
          (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
    }
    List<RawRecord> read = LocalCorpus.read(InputFormat.PARQUET, 1 << 20, dir);
    List<RawRecord> bad = read.stream().filter(r -> r.problem() != null).toList();
    assertEquals(1, bad.size(), bad.toString());
    assertEquals(QuarantineReason.UNREADABLE_ROW_GROUP, bad.get(0).problem());
    assertEquals(4, bad.get(0).offset(), "the group's first row (four rows a group)");
    assertEquals(8, read.size() - bad.size());
  }

  @Test
  void aFileWithoutAFooterIsUnreadable() throws Exception {
    Files.writeString(dir.resolve("junk.parquet"), "PAR1 this is not really parquet");
    List<RawRecord> read = LocalCorpus.read(InputFormat.AUTO, 1 << 20, dir);
    assertEquals(1, read.size());
    assertEquals(QuarantineReason.UNREADABLE_FILE, read.get(0).problem());
  }

  /** README: any format may be {@code .gz}; a Parquet file is decompressed to a local spool and read whole. */
  @Test
  void aGzippedParquetFileIsReadThroughALocalCopyBoundedByTheSpoolLimit() throws Exception {
    Path plain = write(Files.createDirectory(dir.resolve("plain")).resolve("docs.parquet"), 12);
    Path corpus = Files.createDirectory(dir.resolve("corpus"));
    Path gz = corpus.resolve("docs.parquet.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      Files.copy(plain, out);
    }
    assertTrue(Files.size(gz) < Files.size(plain), "the row groups start past the compressed size");
    assertFalse(CorpusReaders.isSplittable(InputFormat.PARQUET, gz.getFileName().toString()), "a .gz is never split");
    List<RawRecord> read = LocalCorpus.read(InputFormat.AUTO, 1 << 20, corpus);
    read.forEach(r -> assertNull(r.problem(), r.payload()));
    assertEquals(12, read.size(), "every row of every row group");
    for (RawRecord r : read) {
      assertTrue(r.sourceUri().endsWith("/docs.parquet.gz"), r.sourceUri());
      assertTrue(r.payload().contains("\"p" + r.offset() + "\""), "row " + r.offset() + ": " + r.payload());
    }
    assertEquals("p7", parser(corpus).parse(read.get(7)).id());

    // Decompressed past ingest.max-spool-bytes: one too_large record naming the limit, nothing read.
    List<RawRecord> capped = LocalCorpus.read(InputFormat.AUTO,
        new ReadOptions(1 << 20, Files.size(plain) - 1, null, null), corpus);
    assertEquals(1, capped.size(), capped.toString());
    assertEquals(QuarantineReason.TOO_LARGE, capped.get(0).problem());
    assertTrue(capped.get(0).payload().contains("ingest.max-spool-bytes"), capped.get(0).payload());

    // A damaged stream is truncated_compressed, as for the other formats.
    byte[] whole = Files.readAllBytes(gz);
    Files.write(gz, Arrays.copyOf(whole, whole.length / 2));
    List<RawRecord> cut = LocalCorpus.read(InputFormat.AUTO, 1 << 20, corpus);
    assertEquals(1, cut.size(), cut.toString());
    assertEquals(QuarantineReason.TRUNCATED_COMPRESSED, cut.get(0).problem());
  }

  @Test
  void aCorruptByteInsideAPageIsCaughtByItsChecksumNotIndexedAsText() throws Exception {
    Path file = write(dir.resolve("flipped.parquet"), 12);
    byte[] bytes = Files.readAllBytes(file);
    byte[] needle = "Body of parquet row 5".getBytes(StandardCharsets.UTF_8);
    int at = indexOf(bytes, needle);
    assertTrue(at > 0, "row 5's text is stored plainly in the file");
    bytes[at] = 'X';   // one byte of a value: no header or length changes, only the page checksum notices
    Files.write(file, bytes);
    List<RawRecord> read = LocalCorpus.read(InputFormat.PARQUET, 1 << 20, dir);
    List<RawRecord> bad = read.stream().filter(r -> r.problem() != null).toList();
    assertEquals(1, bad.size(), bad.toString());
    assertEquals(QuarantineReason.UNREADABLE_ROW_GROUP, bad.get(0).problem());
    assertTrue(bad.get(0).payload().contains("checksum") || bad.get(0).payload().contains("CRC"), bad.get(0).payload());
    assertEquals(8, read.size() - 1, "the other two row groups are read");
    assertTrue(read.stream().noneMatch(r -> r.payload().contains("Xody")), "no corrupted text gets through");
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
