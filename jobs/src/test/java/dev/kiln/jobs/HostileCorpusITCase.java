package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.config.BuildConfig;
import dev.kiln.search.SearchHit;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hostile corpus tree on a real mini-cluster: a directory symlink loop, a link to itself, a
 * really truncated gzip, Parquet files with a corrupt page and a corrupt footer, and files that start
 * with a UTF-8 byte-order mark. The build must go on, index everything intact (each file once), and
 * quarantine and count each damaged part under its reason.
 */
class HostileCorpusITCase {
  @TempDir static Path work;
  static Path root;
  static SnapshotBuilder.BuildReport report;
  static int intactGzipLines;

  static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  static byte[] line(String id, String text) {
    return ("{\"_id\": \"" + id + "\", \"title\": \"" + id + "\", \"text\": \"" + text + "\"}\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  @BeforeAll
  static void build() throws Exception {
    Path corpus = Files.createDirectories(work.resolve("corpus/sub"));
    // A directory link back to the corpus root and a link to itself.
    Files.createSymbolicLink(corpus.resolve("loop"), corpus.getParent());
    Files.createSymbolicLink(corpus.resolve("self.jsonl"), corpus.resolve("self.jsonl"));

    ByteArrayOutputStream bom = new ByteArrayOutputStream();
    bom.write(BOM);
    bom.write(line("bom-first", "Marmots whistle shrilly to warn the colony of circling eagles."));
    bom.write(line("bom-second", "Basalt columns form as thick lava cools and cracks into hexagons."));
    Files.write(corpus.resolve("bom.jsonl"), bom.toByteArray());
    ByteArrayOutputStream md = new ByteArrayOutputStream();
    md.write(BOM);
    md.write("# Sextant navigation\n\nA sextant measures the angle between a star and the horizon.\n"
        .getBytes(StandardCharsets.UTF_8));
    Files.write(corpus.resolve("sextant.md"), md.toByteArray());

    // 400 lines, gzipped, then cut in half: the lines before the cut are intact.
    ByteArrayOutputStream lines = new ByteArrayOutputStream();
    for (int i = 0; i < 400; i++) {
      lines.write(line("gz-" + i, "Gzip record " + i + " about " + Integer.toHexString(i * 40503) + " kilns."));
    }
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (OutputStream out = new GZIPOutputStream(gz)) {
      out.write(lines.toByteArray());
    }
    byte[] whole = gz.toByteArray();
    Files.write(corpus.resolve("cut.jsonl.gz"), Arrays.copyOf(whole, whole.length / 2));

    Schema schema = SchemaBuilder.record("Doc").fields()
        .requiredString("_id").requiredString("title").requiredString("text").endRecord();
    Path pageBroken = parquet(corpus.resolve("pages.parquet"), schema, "pq");
    byte[] p = Files.readAllBytes(pageBroken);
    int at = indexOf(p, "Parquet row pq-5 ".getBytes(StandardCharsets.UTF_8));
    p[at] = 'X';    // inside the second row group's data page: only the page checksum sees it
    Files.write(pageBroken, p);
    Path footerBroken = parquet(corpus.resolve("footer.parquet"), schema, "ft");
    byte[] f = Files.readAllBytes(footerBroken);
    Arrays.fill(f, f.length - 60, f.length - 8, (byte) 0xFF);   // the footer's thrift, not the magic
    Files.write(footerBroken, f);

    root = work.resolve("snapshots");
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(work.resolve("corpus").toString());
    config.snapshots = root.toString();
    config.shards = 2;
    config.parallelism = 2;
    config.chunker.size = 64;
    config.chunker.overlap = 8;
    config.ingest.maxBadFraction = 0.5;
    report = new SnapshotBuilder(config, new PrintStream(OutputStream.nullOutputStream()))
        .build(BuildJob.localEnvironment(2));
  }

  /** 12 rows, 4 per row group. */
  static Path parquet(Path file, Schema schema, String prefix) throws Exception {
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
        .withSchema(schema).withRowGroupRowCountLimit(4).build()) {
      for (int i = 0; i < 12; i++) {
        GenericRecord g = new GenericData.Record(schema);
        g.put("_id", prefix + "-" + i);
        g.put("title", "Row " + i);
        g.put("text", "Parquet row " + prefix + "-" + i + " describes glaze firing cone " + i + ".");
        w.write(g);
      }
    }
    return file;
  }

  static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("not found");
  }

  @Test
  void theBuildGoesOnAndCountsEachDamagedPartUnderItsReason() {
    Manifest m = new SnapshotStore(root).open(report.snapshotId());
    Map<String, Long> reasons = m.quarantine().byReason();
    assertEquals(2L, reasons.get("unreadable_path"), reasons.toString());          // loop/ and self.jsonl
    assertEquals(1L, reasons.get("truncated_compressed"), reasons.toString());
    assertEquals(1L, reasons.get("unreadable_row_group"), reasons.toString());
    assertEquals(1L, reasons.get("unreadable_file"), reasons.toString());
    assertEquals(5L, m.quarantine().total(), reasons.toString());
    long gzipDocs = m.counters().get("documents") - 2 - 1 - 8;   // BOM lines, Markdown, intact Parquet rows
    assertTrue(gzipDocs > 100 && gzipDocs < 400, "the lines before the cut are indexed: " + gzipDocs);
    assertEquals(m.counters().get("documents") + 5, m.counters().get("records.read"));
  }

  @Test
  void theQuarantineNamesTheLoopAndTheDamagedTail() throws Exception {
    List<JsonNode> records = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    try (Stream<Path> files = Files.list(root.resolve("quarantine").resolve(report.snapshotId()))) {
      for (Path file : files.toList()) {
        for (String l : Files.readAllLines(file)) {
          records.add(json.readTree(l));
        }
      }
    }
    JsonNode loop = records.stream().filter(r -> r.get("source_uri").asText().endsWith("/sub/loop")).findFirst().orElseThrow();
    assertEquals("unreadable_path", loop.get("reason").asText());
    assertTrue(loop.get("prefix").asText().contains("already listed"), loop.toString());
    JsonNode tail = records.stream().filter(r -> r.get("reason").asText().equals("truncated_compressed")).findFirst().orElseThrow();
    assertTrue(tail.get("source_uri").asText().endsWith("cut.jsonl.gz"), tail.toString());
    assertTrue(tail.get("offset").asLong() > 0, tail.toString());
  }

  @Test
  void intactRecordsAreSearchableAndEachFileIsIndexedOnce() throws Exception {
    try (Searcher searcher = Searcher.open(root)) {
      assertEquals("bom-first", top(searcher, "marmots whistle eagles").docId(), "the first line after a BOM is kept");
      SearchHit sextant = top(searcher, "sextant angle star horizon");
      assertEquals("sub/sextant.md", sextant.docId());
      assertEquals("Sextant navigation", sextant.title(), "the BOM does not hide the Markdown heading");
      assertEquals("gz-0", top(searcher, "Gzip record 0 about 0 kilns").docId());
      assertEquals("pq-9", top(searcher, "Parquet row pq-9 glaze firing cone 9").docId());
      assertFalse(searcher.bm25("Xarquet", 5).stream().anyMatch(h -> h.text().contains("Xarquet")));
      // Through the loop the tree would be read again as loop/…: no document id may carry it.
      assertTrue(searcher.bm25("sextant", 10).stream().noneMatch(h -> h.docId().contains("loop")));
    }
  }

  private static SearchHit top(Searcher searcher, String query) {
    List<SearchHit> hits = searcher.bm25(query, 3);
    assertFalse(hits.isEmpty(), "no results for " + query);
    return hits.get(0);
  }
}
