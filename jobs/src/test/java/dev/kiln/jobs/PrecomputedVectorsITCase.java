package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.config.BuildConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
 * Precomputed vectors end to end on a real mini-cluster: real vectors (made by the bundled model in
 * the test, as an external GPU job would) are fed in JSON lines and in Parquet, the build indexes
 * them without loading the model, a query embedded with the same model finds its own document first,
 * and every kind of bad vector is quarantined under its own reason while the build goes on.
 */
class PrecomputedVectorsITCase {
  static final String MODEL = "all-minilm-l6-v2-q";
  static final ObjectMapper JSON = new ObjectMapper();

  /** id, title, text, and a query that should find it. */
  static final String[][] DOCS = {
      {"glacier", "Glacier flow", "Glaciers creep downhill under their own weight, grinding bedrock into fine flour.",
          "how do glaciers move"},
      {"lighthouse", "Fresnel lenses", "A Fresnel lens focuses a lighthouse lamp into a beam visible far out at sea.",
          "lens that makes lighthouse beams"},
      {"kelp", "Kelp forests", "Giant kelp grows half a metre a day in cold, nutrient-rich coastal water.",
          "fast growing seaweed in cold oceans"},
      {"espresso", "Espresso extraction", "Espresso forces hot water through finely ground coffee at nine bar.",
          "brewing coffee under pressure"},
      {"turbine", "Wind turbine yaw", "The yaw drive turns the nacelle so the rotor faces into the wind.",
          "rotating a wind turbine toward the wind"},
      {"origami", "Paper folding", "Origami crease patterns fold a single uncut square of paper into a crane.",
          "folding paper birds"}};

  @TempDir static Path work;
  static float[][] vectors;
  static String longText;
  static float[] longVector;
  static Path jsonlRoot;
  static Path parquetRoot;
  static SnapshotBuilder.BuildReport jsonl;
  static SnapshotBuilder.BuildReport parquet;
  static String jsonlOutput;
  /** The JSON-lines corpus again with {@code embed.store-supplied: true}. */
  static Path storedRoot;
  static SnapshotBuilder.BuildReport stored;

  @BeforeAll
  static void build() throws Exception {
    // Far longer than the model's 256 tokens: still one chunk under the supplied vector.
    longText = "Tidal bores form where a rising tide meets a funnel-shaped estuary. ".repeat(60);
    try (TextEmbedder e = TextEmbedder.open(ModelRegistry.resolve(MODEL), 1, 1)) {
      List<String> passages = new ArrayList<>();
      for (String[] d : DOCS) {
        passages.add(d[1] + "\n" + d[2]);
      }
      vectors = e.embedPassages(passages);
      longVector = e.embedPassages(List.of("Tidal bores\n" + longText))[0];
    }

    Path jsonlCorpus = work.resolve("jsonl/corpus.jsonl");
    Files.createDirectories(jsonlCorpus.getParent());
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < DOCS.length; i++) {
      lines.append(record(DOCS[i][0], DOCS[i][1], DOCS[i][2], vectors[i])).append('\n');
    }
    lines.append(record("tidal", "Tidal bores", longText, longVector)).append('\n');
    float[] v = vectors[0];
    lines.append(record("short", "Wrong dimension", "three numbers", new float[] {0.6f, 0.8f, 0f})).append('\n');
    lines.append(record("twice", "Not unit", "a vector twice as long", scaled(v, 2f))).append('\n');
    lines.append(record("zero", "Zero", "a vector of zeros", new float[v.length])).append('\n');
    // Python's json.dumps writes NaN and Infinity as bare literals; some writers quote them.
    lines.append(record("nan", "NaN", "a NaN component", v).replace("[" + v[0] + ",", "[NaN,")).append('\n');
    lines.append(record("inf", "Infinity", "an infinite component", v).replace("[" + v[0] + ",", "[\"Infinity\",")).append('\n');
    lines.append(record("huge", "Beyond float", "a component beyond float range", v).replace("[" + v[0] + ",", "[1e300,")).append('\n');
    lines.append("{\"_id\": \"text-vector\", \"title\": \"Malformed\", \"text\": \"vector is a string\", \"vector\": \"0.1 0.2\"}\n");
    Files.writeString(jsonlCorpus, lines);
    jsonlRoot = work.resolve("jsonl-snapshots");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    jsonl = new SnapshotBuilder(config(jsonlCorpus, jsonlRoot), new PrintStream(buf, true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2));
    jsonlOutput = buf.toString(StandardCharsets.UTF_8);
    storedRoot = work.resolve("jsonl-stored");
    BuildConfig sc = config(jsonlCorpus, storedRoot);
    sc.embed.storeSupplied = true;
    stored = new SnapshotBuilder(sc, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2));

    Path parquetCorpus = work.resolve("parquet/rows.parquet");
    Files.createDirectories(parquetCorpus.getParent());
    Schema schema = SchemaBuilder.record("Doc").fields()
        .requiredString("_id").requiredString("title").requiredString("text")
        .name("embedding").type().optional().array().items().floatType()
        .endRecord();
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(
        new LocalOutputFile(parquetCorpus)).withSchema(schema).build()) {
      for (int i = 0; i < DOCS.length; i++) {
        w.write(row(schema, DOCS[i][0], DOCS[i][1], DOCS[i][2], vectors[i]));
      }
      float[] nan = v.clone();
      nan[5] = Float.NaN;
      w.write(row(schema, "nan", "NaN", "a NaN float in Parquet", nan));
      w.write(row(schema, "short", "Wrong dimension", "two floats", new float[] {0.6f, 0.8f}));
      // No vector: this one record goes to the model.
      w.write(row(schema, "plain", "Tidal bores", longText, null));
    }
    parquetRoot = work.resolve("parquet-snapshots");
    BuildConfig pc = config(parquetCorpus, parquetRoot);
    pc.ingest.vectorField = "embedding";
    parquet = new SnapshotBuilder(pc, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2));
  }

  static BuildConfig config(Path corpus, Path root) {
    BuildConfig c = new BuildConfig();
    c.corpus = List.of(corpus.toString());
    c.snapshots = root.toString();
    c.shards = 2;
    c.parallelism = 2;
    c.embed.model = MODEL;
    c.ingest.maxBadFraction = 0.6;
    c.index.recallProbeSamples = 0;
    return c;
  }

  static String record(String id, String title, String text, float[] vector) throws Exception {
    ObjectNode o = JSON.createObjectNode();
    o.put("_id", id);
    o.put("title", title);
    o.put("text", text);
    ArrayNode a = o.putArray("vector");
    for (float f : vector) {
      a.add(f);
    }
    return JSON.writeValueAsString(o);
  }

  static GenericRecord row(Schema schema, String id, String title, String text, float[] vector) {
    GenericRecord g = new GenericData.Record(schema);
    g.put("_id", id);
    g.put("title", title);
    g.put("text", text);
    if (vector != null) {
      List<Float> list = new ArrayList<>();
      for (float f : vector) {
        list.add(f);
      }
      g.put("embedding", list);
    }
    return g;
  }

  static float[] scaled(float[] v, float by) {
    float[] s = v.clone();
    for (int i = 0; i < s.length; i++) {
      s[i] *= by;
    }
    return s;
  }

  @Test
  void jsonlBuildWithEveryVectorSuppliedNeverLoadsTheModel() {
    Manifest m = new SnapshotStore(jsonlRoot).open(jsonl.snapshotId());
    assertEquals(0L, m.counters().get("model.loads"), jsonlOutput);
    assertEquals(0L, m.embeddings().embedded());
    assertEquals(7L, m.embeddings().supplied());
    assertEquals(7L, m.counters().get("chunks.supplied"));
    assertEquals(MODEL, m.model().name());
    assertTrue(jsonlOutput.contains("embedding models loaded"), jsonlOutput);
    // The counters table names the largest shard (the size the default search depth depends on).
    long largest = m.shards().stream().mapToLong(Manifest.ShardEntry::chunks).max().orElseThrow();
    assertTrue(largest > 0 && largest < m.totalChunks(), "two shards: " + m.shards());
    assertEquals(String.format(Locale.ROOT, "%,d", largest),
        jsonl.counters().asMap().get("largest shard (chunks)"), jsonlOutput);
  }

  /**
   * By default a supplied vector goes from the chunker to its shard writer and is not copied into the
   * snapshot's stored vectors (the corpus holds it); {@code embed.store-supplied} copies it, through the
   * embed stage, so that the snapshot is a complete source of vectors. Both index the same chunks.
   */
  @Test
  void suppliedVectorsAreCopiedIntoTheStoredVectorsOnlyWhenAskedTo() throws Exception {
    Manifest plain = new SnapshotStore(jsonlRoot).open(jsonl.snapshotId());
    assertEquals(List.of(), plain.embeddings().files(), "nothing stored: every vector was supplied");
    Manifest copied = new SnapshotStore(storedRoot).open(stored.snapshotId());
    assertFalse(copied.embeddings().files().isEmpty(), "store-supplied: the vectors are stored");
    assertEquals(7L, copied.embeddings().supplied());
    assertEquals(0L, copied.counters().get("model.loads"));
    assertEquals(plain.totalChunks(), copied.totalChunks());
    try (Searcher a = Searcher.open(jsonlRoot); Searcher b = Searcher.open(storedRoot)) {
      for (String[] d : DOCS) {
        assertArrayEquals(a.chunkVector(d[0] + "#0").orElseThrow(), b.chunkVector(d[0] + "#0").orElseThrow(), 0f);
      }
    }
  }

  @Test
  void aRecordWithAVectorIsOneChunkWhateverItsLength() throws Exception {
    Manifest m = new SnapshotStore(jsonlRoot).open(jsonl.snapshotId());
    assertEquals(7L, m.totalChunks());
    try (Searcher s = Searcher.open(jsonlRoot)) {
      SearchHit top = s.search("tidal bores estuary", SearchMode.BM25, 1).results().get(0);
      assertEquals("tidal#0", top.chunkId());
      assertEquals(longText, top.text());
    }
  }

  @Test
  void aQueryEmbeddedWithTheSameModelFindsItsOwnDocumentFirst() throws Exception {
    for (Path root : List.of(jsonlRoot, parquetRoot)) {
      try (Searcher s = Searcher.open(root)) {
        for (String[] d : DOCS) {
          List<SearchHit> hits = s.search(d[3], SearchMode.DENSE, 3).results();
          assertEquals(d[0], hits.get(0).docId(), root + " query '" + d[3] + "': " + hits);
        }
      }
    }
  }

  @Test
  void theIndexHoldsTheSuppliedVectorAsGiven() throws Exception {
    try (Searcher s = Searcher.open(parquetRoot)) {
      Optional<float[]> stored = s.chunkVector("kelp#0");
      assertTrue(stored.isPresent());
      assertArrayEquals(vectors[2], stored.get(), 0f);
    }
  }

  @Test
  void everyBadVectorIsQuarantinedUnderItsReasonAndTheBuildGoesOn() {
    Manifest m = new SnapshotStore(jsonlRoot).open(jsonl.snapshotId());
    assertEquals(Map.of("vector_dimension", 1L, "vector_not_unit", 1L, "vector_zero", 1L,
        "vector_not_finite", 3L, "vector_malformed", 1L), m.quarantine().byReason());
    assertEquals(7L, m.quarantine().total());
    assertEquals(7L, m.counters().get("documents"));
  }

  @Test
  void parquetListOfFloatsUnderAConfiguredFieldIsSuppliedAndARowWithoutOneIsEmbedded() {
    Manifest m = new SnapshotStore(parquetRoot).open(parquet.snapshotId());
    assertEquals(6L, m.embeddings().supplied());
    assertTrue(m.counters().get("model.loads") >= 1, "model loads: " + m.counters().get("model.loads"));
    assertEquals(Map.of("vector_not_finite", 1L, "vector_dimension", 1L), m.quarantine().byReason());
    // The record without a vector went through the chunker (several chunks) and the model.
    assertTrue(m.embeddings().embedded() > 1, "embedded: " + m.embeddings().embedded());
    // Identical chunks of that record are embedded once and the rest take the vector (deduplicated).
    assertEquals(m.totalChunks(), m.embeddings().supplied() + m.embeddings().embedded()
        + m.embeddings().deduplicated());
  }
}
