package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import dev.kiln.index.ShardSchema;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.testing.EmbeddedKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Changelog builds from Debezium change events on a real KRaft broker, as a Postgres connector with
 * the JSON converter writes them: keys {@code {"id": N}} (some wrapped in {@code schema}/{@code
 * payload}), the initial snapshot as {@code r} events, then creates, updates, a soft delete (the row's
 * {@code deleted} flag), a delete followed by its tombstone, and a tombstone alone. Snapshot 1 is built
 * from an empty base, snapshot 2 continues it; malformed envelopes are quarantined, not fatal.
 */
class DebeziumChangelogITCase {
  static final String TOPIC = "pg.public.articles";

  @TempDir static Path work;
  static EmbeddedKafka kafka;
  static Path root;
  static Manifest first;
  static Manifest second;
  static Map<String, String> docsFirst;
  static Map<String, String> docsSecond;

  @BeforeAll
  static void buildTwo() throws Exception {
    kafka = new EmbeddedKafka(work);
    kafka.createTopic(TOPIC, 2);
    root = work.resolve("snapshots");
    try (KafkaProducer<String, String> p = kafka.producer()) {
      // The connector's initial snapshot, then live changes.
      read(p, 1, "Ocean tides", "Tides rise and fall twice a day under the Moon's pull.", false);
      read(p, 2, "Honeybees", "A honeybee colony overwinters as a tight cluster around its queen.", true);
      read(p, 3, "Stratovolcanoes", "Stratovolcanoes are steep cones of alternating lava and ash layers.", false);
      read(p, 4, "Chess openings", "The Sicilian Defence answers e4 with c5 and fights for the centre.", true);
      kafka.send(p, TOPIC, key(5, false), event("c", null, row(5, "Penguins",
          "Emperor penguins huddle in rotating groups to share warmth.", false)));
      // Malformed envelopes: each quarantined under its own reason.
      kafka.send(p, TOPIC, key(90, false), "{\"before\": null, \"after\": " + row(90, "x", "y", false) + "}");
      kafka.send(p, TOPIC, key(91, false), event("m", null, row(91, "x", "y", false)));
      kafka.send(p, TOPIC, key(92, false), event("c", null, null));
      kafka.send(p, TOPIC, null, event("c", null, "{\"title\": \"no id\", \"text\": \"nowhere to go\"}"));
    }
    first = build();
    docsFirst = docs(first.id());
    try (KafkaProducer<String, String> p = kafka.producer()) {
      kafka.send(p, TOPIC, key(1, true), event("u", row(1, "Ocean tides", "old", false),
          row(1, "Tidal theory revised", "Tides are now blamed on a zebrafinch choir singing to the sea.", false)));
      kafka.send(p, TOPIC, key(2, false), event("u", row(2, "Honeybees", "old", false),
          row(2, "Honeybees", "A honeybee colony overwinters as a tight cluster around its queen.", true)));
      kafka.send(p, TOPIC, key(3, false), event("d", row(3, "Stratovolcanoes", "gone", false), null));
      kafka.send(p, TOPIC, key(3, false), null);
      kafka.send(p, TOPIC, key(4, true), null);
      kafka.send(p, TOPIC, key(6, true), wrap(event("c", null, row(6, "Glaciers",
          "Glaciers flow downhill under their own weight, grinding valleys into U shapes.", false))));
    }
    second = build();
    docsSecond = docs(second.id());
  }

  @AfterAll
  static void stopKafka() {
    if (kafka != null) {
      kafka.close();
    }
  }

  static String key(int id, boolean wrapped) {
    String k = "{\"id\": " + id + "}";
    return wrapped ? "{\"schema\": {\"type\": \"struct\", \"fields\": [{\"field\": \"id\", \"type\": \"int32\"}]},"
        + " \"payload\": " + k + "}" : k;
  }

  static String row(int id, String title, String text, boolean deleted) {
    return "{\"id\": " + id + ", \"title\": \"" + title + "\", \"text\": \"" + text + "\", \"tenant\": \"t" + (id % 2)
        + "\", \"deleted\": " + deleted + "}";
  }

  static String event(String op, String before, String after) {
    return "{\"before\": " + before + ", \"after\": " + after + ", \"source\": {\"connector\": \"postgresql\","
        + " \"table\": \"articles\", \"lsn\": 24023128}, \"op\": \"" + op + "\", \"ts_ms\": 1764806400000}";
  }

  static String wrap(String event) {
    return "{\"schema\": {\"type\": \"struct\", \"name\": \"pg.public.articles.Envelope\"}, \"payload\": " + event + "}";
  }

  static void read(KafkaProducer<String, String> p, int id, String title, String text, boolean wrapped) throws Exception {
    String e = event("r", null, row(id, title, text, false));
    kafka.send(p, TOPIC, key(id, wrapped), wrapped ? wrap(e) : e);
  }

  static Manifest build() throws Exception {
    return build(config());
  }

  static BuildConfig config() {
    BuildConfig config = new BuildConfig();
    config.snapshots = root.toString();
    config.shards = 2;
    config.parallelism = 2;
    config.ingest.maxBadFraction = 0.5; // the malformed envelopes are part of the fixture
    config.chunker.size = 48;
    config.chunker.overlap = 8;
    config.changelog.topic = TOPIC;
    config.changelog.bootstrap = kafka.bootstrap();
    config.changelog.format = "debezium";
    config.changelog.softDeleteField = "deleted";
    return config;
  }

  static Manifest build(BuildConfig config) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Manifest m = new SnapshotBuilder(config.validate(), new PrintStream(out, true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2)).manifest();
    System.out.println(out.toString(StandardCharsets.UTF_8));
    return m;
  }

  /** doc id → its chunks' texts joined, over every shard of a snapshot. */
  static Map<String, String> docs(String id) throws Exception {
    SnapshotLayout layout = new SnapshotLayout(root);
    Map<String, String> all = new TreeMap<>();
    for (int s = 0; s < 2; s++) {
      try (FSDirectory dir = FSDirectory.open(layout.shardDir(id, s)); DirectoryReader r = DirectoryReader.open(dir)) {
        StoredFields fields = r.storedFields();
        for (int d = 0; d < r.maxDoc(); d++) {
          var doc = fields.document(d);
          all.merge(doc.get(ShardSchema.DOC_ID), doc.get(ShardSchema.TEXT), (a, b) -> a + " " + b);
        }
      }
    }
    return all;
  }

  @Test
  void snapshotReadsAndCreatesPublishTheirRowsUnderTheKeysId() {
    assertEquals(List.of("1", "2", "3", "4", "5"), List.copyOf(docsFirst.keySet()));
    assertTrue(docsFirst.get("1").contains("Moon"));
    assertTrue(docsFirst.get("5").contains("penguins"));
  }

  @Test
  void updatesSoftDeletesDeletesAndTombstonesApply() {
    assertEquals(List.of("1", "5", "6"), List.copyOf(docsSecond.keySet()),
        "2 soft-deleted, 3 deleted (then its tombstone), 4 by a tombstone alone; 6 created");
    assertTrue(docsSecond.get("1").contains("zebrafinch"));
    assertFalse(docsSecond.get("1").contains("Moon"), "the update replaced the old text");
    assertEquals(docsFirst.get("5"), docsSecond.get("5"), "an untouched row keeps its chunks");
    assertTrue(docsSecond.get("6").contains("Glaciers"));
  }

  @Test
  void theManifestCountsTheOps() {
    Manifest.ChangelogInfo c = second.changelog();
    assertNotNull(c);
    assertEquals(TOPIC, c.topic());
    assertEquals(first.id(), c.base());
    assertEquals(2, c.upserts(), "1 and 6");
    assertEquals(3, c.deletes(), "2 (soft), 3 (delete and tombstone: one id), 4");
    assertEquals(0, c.unknownDeletes());
  }

  @Test
  void malformedEnvelopesAreQuarantinedWithTheirReasons() {
    Manifest.QuarantineInfo q = first.quarantine();
    assertEquals(Map.of("missing_op", 1L, "unknown_op", 1L, "missing_after", 1L, "missing_id", 1L), q.byReason());
    assertEquals(0, second.quarantine().total());
  }

  @Test
  void aChangelogBuildKeepsTheBasesRangeFields() {
    BuildConfig ranged = config();
    ranged.index.rangeFields.put("version", "long");
    ConfigException e = assertThrows(ConfigException.class, () -> build(ranged));
    assertTrue(e.getMessage().contains("index.range-fields {version=long} differ from base snapshot"), e.getMessage());
  }

  @Test
  void searchSeesTheRowsMetadata() throws Exception {
    try (Searcher s = Searcher.builder().root(root).snapshot(second.id()).build()) {
      List<SearchHit> hits = s.search("zebrafinch choir", SearchMode.BM25, 5).results();
      assertEquals("1", hits.get(0).docId());
      assertEquals("t1", hits.get(0).metadata().get("tenant"), "ingest.metadata-fields map the row's tenant");
      assertTrue(s.search("honeybee colony", SearchMode.BM25, 10).results().isEmpty(), "soft-deleted");
    }
  }
}
