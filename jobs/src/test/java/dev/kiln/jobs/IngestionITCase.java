package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.config.BuildConfig;
import dev.kiln.search.SearchHit;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.configuration.Configuration;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ingestion breadth on a real mini-cluster: a tree of gzipped and plain JSON lines, Parquet and text
 * files with one record of every bad-input class, metadata from record fields and path patterns, the
 * quarantine output, the manifest's quarantine block, per-source metrics, and a build that fails on
 * too much bad input without touching {@code CURRENT}.
 */
class IngestionITCase {
  @TempDir static Path work;
  static Path corpus;
  static Path root;
  static SnapshotBuilder.BuildReport report;
  static String output;
  static Map<String, Long> sourceMetrics = new TreeMap<>();

  @BeforeAll
  static void build() throws Exception {
    corpus = Files.createDirectories(work.resolve("tenants"));
    Path faq = Files.createDirectories(corpus.resolve("acme/faq"));
    ByteArrayOutputStream docs = new ByteArrayOutputStream();
    docs.write(line("dup", "Glacier flow", "Glaciers creep downhill under their own weight, grinding bedrock into flour."));
    docs.write(line("lighthouse", "Fresnel lenses", "A Fresnel lens focuses a lighthouse lamp into a beam visible far out at sea."));
    docs.write("{\"_id\": \"broken\", \"text\": \n".getBytes(StandardCharsets.UTF_8));               // malformed_json
    docs.write("{\"_id\": \"empty\", \"title\": \"\", \"text\": \"   \"}\n".getBytes(StandardCharsets.UTF_8)); // empty_text
    docs.write(new byte[] {'{', '"', '_', 'i', 'd', '"', ':', '"', (byte) 0xFF, '"', '}', '\n'});          // invalid_utf8
    docs.write(line("kelp", "Kelp forests", "Giant kelp grows half a metre a day in cold, nutrient-rich coastal water."));
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(faq.resolve("docs.jsonl.gz")))) {
      out.write(docs.toByteArray());
    }
    ByteArrayOutputStream more = new ByteArrayOutputStream();
    more.write(line("dup", "Duplicate", "This later record reuses an id and must lose to docs.jsonl.gz."));
    more.write(line("huge", "Too large", "x".repeat(70_000)));                                          // too_large
    more.write(line("origami", "Paper folding", "Origami crease patterns fold a single uncut square into a crane."));
    Files.write(faq.resolve("more.jsonl"), more.toByteArray());

    Path manual = Files.createDirectories(corpus.resolve("globex/manual"));
    Schema schema = SchemaBuilder.record("Doc").fields()
        .requiredString("_id").requiredString("title").requiredString("text")
        .name("metadata").type().optional().map().values().stringType().endRecord();
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(
        new LocalOutputFile(manual.resolve("rows.parquet"))).withSchema(schema).build()) {
      String[][] rows = {
          {"turbine", "Wind turbine yaw", "The yaw drive turns the nacelle so the rotor faces into the wind."},
          {"espresso", "Espresso extraction", "Espresso forces hot water through finely ground coffee at nine bar."}};
      for (String[] r : rows) {
        GenericRecord g = new GenericData.Record(schema);
        g.put("_id", r[0]);
        g.put("title", r[1]);
        g.put("text", r[2]);
        g.put("metadata", Map.of("version", "7", "language", "en"));
        w.write(g);
      }
    }
    Path notes = Files.createDirectories(corpus.resolve("globex/notes"));
    Files.writeString(notes.resolve("runbook.txt"), "Rotate the on-call pager every Monday at nine.\nEscalate after fifteen minutes.");
    Files.write(notes.resolve("logo.txt"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 0, 13, 'I', 'H', 'D', 'R'}); // binary_file

    root = work.resolve("snapshots");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    report = new SnapshotBuilder(config(0.5), new PrintStream(buf, true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2, CapturingReporter.configure(new Configuration())));
    output = buf.toString(StandardCharsets.UTF_8);
    // The reporter's maps are shared by every build in this JVM: count only this build's job.
    CapturingReporter.COUNTERS.forEach((id, c) -> {
      if (id.contains(".source.") && id.contains(report.snapshotId())) {
        sourceMetrics.merge(id.substring(id.lastIndexOf('.') + 1), c.getCount(), Long::sum);
      }
    });
  }

  static BuildConfig config(double maxBadFraction) {
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(corpus.toString());
    config.snapshots = root.toString();
    config.shards = 2;
    config.parallelism = 2;
    config.chunker.size = 64;
    config.chunker.overlap = 8;
    config.ingest.maxRecordBytes = 65_536;
    config.ingest.maxBadFraction = maxBadFraction;
    config.ingest.pathPatterns = List.of("^(?<tenant>[^/]+)/(?<collection>[^/]+)/");
    return config;
  }

  static byte[] line(String id, String title, String text) {
    return ("{\"_id\": \"" + id + "\", \"title\": \"" + title + "\", \"text\": \"" + text + "\"}\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  // 13 records: docs.jsonl.gz 6 (3 bad), more.jsonl 3 (duplicate + too large), Parquet 2, text files 2 (1 binary).
  static final Map<String, Long> EXPECTED_REASONS = Map.of("malformed_json", 1L, "empty_text", 1L,
      "invalid_utf8", 1L, "duplicate_id", 1L, "too_large", 1L, "binary_file", 1L);

  @Test
  void manifestCountsEveryBadRecordByReason() {
    Manifest m = new SnapshotStore(root).open(report.snapshotId());
    assertEquals(13L, m.counters().get("records.read"));
    assertEquals(7L, m.counters().get("documents"));
    assertEquals(6L, m.quarantine().total());
    assertEquals(EXPECTED_REASONS, m.quarantine().byReason());
    assertTrue(output.contains("quarantined: duplicate_id"), output);
  }

  @Test
  void quarantineOutputHoldsEveryBadRecordWithSourceOffsetReasonAndPrefix() throws Exception {
    Path dir = root.resolve("quarantine").resolve(report.snapshotId());
    List<JsonNode> records = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.toList()) {
        for (String l : Files.readAllLines(f)) {
          records.add(json.readTree(l));
        }
      }
    }
    Map<String, Long> reasons = new TreeMap<>();
    records.forEach(r -> reasons.merge(r.get("reason").asText(), 1L, Long::sum));
    assertEquals(new TreeMap<>(EXPECTED_REASONS), reasons);
    JsonNode dup = records.stream().filter(r -> r.get("reason").asText().equals("duplicate_id")).findFirst().orElseThrow();
    assertTrue(dup.get("source_uri").asText().endsWith("acme/faq/more.jsonl"), "the later record loses: " + dup);
    assertEquals(0, dup.get("offset").asLong());
    JsonNode big = records.stream().filter(r -> r.get("reason").asText().equals("too_large")).findFirst().orElseThrow();
    assertTrue(big.get("prefix").asText().startsWith("{\"_id\": \"huge\""), big.toString());
    assertTrue(big.get("prefix").asText().length() <= 200);
    JsonNode bad = records.stream().filter(r -> r.get("reason").asText().equals("malformed_json")).findFirst().orElseThrow();
    assertTrue(bad.get("source_uri").asText().endsWith("docs.jsonl.gz"));
    assertTrue(bad.get("offset").asLong() > 0, "offset of the line in the decompressed stream");
  }

  @Test
  void metadataFromPathsRecordsAndFilesReachesTheSegments() throws Exception {
    try (Searcher searcher = Searcher.open(root)) {
      SearchHit espresso = top(searcher, "espresso ground coffee nine bar");
      assertEquals("espresso", espresso.docId());
      assertEquals("globex", espresso.metadata().get("tenant"));
      assertEquals("manual", espresso.metadata().get("collection"));
      assertEquals("7", espresso.metadata().get("version"));
      assertEquals("en", espresso.metadata().get("language"));
      assertTrue(espresso.metadata().get("source_uri").endsWith("globex/manual/rows.parquet"));
      assertTrue(espresso.metadata().containsKey("modified"));

      SearchHit glacier = top(searcher, "glaciers grinding bedrock");
      assertEquals("dup", glacier.docId());
      assertEquals("acme", glacier.metadata().get("tenant"));
      assertTrue(glacier.text().contains("Glaciers creep"), "the first record of a duplicated id is kept");

      SearchHit runbook = top(searcher, "on-call pager escalate");
      assertEquals("globex/notes/runbook.txt", runbook.docId());
      assertEquals("notes", runbook.metadata().get("collection"));
    }
  }

  @Test
  void perSourceFlinkMetricsCountRecordsAndBytes() {
    assertEquals(13L, sourceMetrics.get("recordsRead"), sourceMetrics.toString());
    // Duplicates are found after parsing, so the parse stage's per-source count excludes them.
    assertEquals(5L, sourceMetrics.get("recordsQuarantined"), sourceMetrics.toString());
    assertEquals(8L, sourceMetrics.get("recordsParsed"), sourceMetrics.toString());
    assertTrue(sourceMetrics.get("bytesRead") > 70_000, sourceMetrics.toString());
  }

  @Test
  void tooMuchBadInputFailsTheBuildNamingTheWorstSourceAndLeavesCurrentAlone() throws Exception {
    String before = new SnapshotStore(root).currentId();
    RuntimeException e = assertThrows(RuntimeException.class, () -> new SnapshotBuilder(config(0.1),
        new PrintStream(OutputStream.nullOutputStream())).build(BuildJob.localEnvironment(2)));
    assertTrue(e.getMessage().contains("too much bad input: 6 of 13 records"), e.getMessage());
    assertTrue(e.getMessage().contains("docs.jsonl.gz (3)"), e.getMessage());
    assertTrue(e.getMessage().contains("ingest.max-bad-fraction"), e.getMessage());
    SnapshotStore store = new SnapshotStore(root);
    assertEquals(before, store.currentId());
    assertEquals(List.of(before), store.list(), "nothing new is complete");
    // The failed build is reduced to the vectors it computed, kept for the next build (resume).
    for (String id : store.allIds()) {
      if (id.equals(before)) {
        continue;
      }
      assertEquals(StagingMarker.RESUMABLE, store.stagingMarker(id).orElseThrow().state());
      try (Stream<Path> left = Files.list(store.layout().snapshotDir(id))) {
        // (A local root's ".STAGING.lock", the compare-and-set's lock file of the marker, is no data.)
        assertEquals(List.of("STAGING", "embeddings"), left.map(p -> p.getFileName().toString())
            .filter(n -> !SnapshotLayout.STAGING_LOCKS.contains(n)).sorted().toList());
      }
    }
    try (Stream<Path> dirs = Files.list(root.resolve("quarantine"))) {
      assertEquals(2, dirs.count(), "the failed build's quarantine output is kept for inspection");
    }
    assertFalse(e.getMessage().isBlank());
  }

  private static SearchHit top(Searcher searcher, String query) {
    List<SearchHit> hits = searcher.bm25(query, 3);
    assertFalse(hits.isEmpty(), "no results for " + query);
    return hits.get(0);
  }
}
