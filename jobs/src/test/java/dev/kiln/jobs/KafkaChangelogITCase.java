package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import dev.kiln.index.ParentStoreWriter;
import dev.kiln.index.ShardSchema;
import dev.kiln.operators.JobCounters;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.EmbeddedKafka;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.MultiBits;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Changelog builds against a real KRaft broker: snapshot 1 from a JSONL corpus, snapshot 2 from
 * snapshot 1 plus a topic's upserts, deletes, repeated ops and bad records, snapshot 3 continuing
 * from the offsets snapshot 2 recorded.
 */
class KafkaChangelogITCase {
  static final String TOPIC = "docs-changelog";
  static final List<String> UNTOUCHED = List.of("volcano", "chess", "penguins");

  @TempDir static Path work;
  static EmbeddedKafka kafka;
  static Path root;
  static Manifest first;
  static Manifest second;
  static Manifest third;
  static Map<String, Long> endAfterSecond;
  static Map<String, String> chunksFirst;
  static Map<String, String> chunksSecond;
  static final Map<String, Long> sourceMetrics = new TreeMap<>();
  static long sentBytes;

  @BeforeAll
  static void buildThree() throws Exception {
    kafka = new EmbeddedKafka(work);
    kafka.createTopic(TOPIC, 2);
    root = work.resolve("snapshots");
    Path corpus = work.resolve("corpus.jsonl");
    Files.copy(Path.of(KafkaChangelogITCase.class.getResource("/fixture/corpus.jsonl").toURI()), corpus);
    BuildConfig c1 = config();
    c1.corpus = List.of(corpus.toString());
    first = build(c1);
    chunksFirst = chunks(first.id());

    try (KafkaProducer<String, String> p = kafka.producer()) {
      upsert(p, "tides", "Tidal theory revised", "Tides are now blamed on a zebrafinch choir singing to the sea.");
      upsert(p, "glaciers", "Glaciers", "Glaciers flow downhill under their own weight, grinding valleys into U shapes.");
      delete(p, "bees");
      delete(p, "unicorns"); // never existed: counted, not an error
      // Several ops on one id: the last one (highest offset in its partition) wins.
      upsert(p, "sourdough", "Sourdough", "marmalade replaces the starter");
      delete(p, "sourdough");
      delete(p, "compilers");
      upsert(p, "compilers", "Register allocation", "Linear scan allocation is quokka fast for JIT compilers.");
      send(p, "junk", "{this is not json");
      send(p, "merge", "{\"op\": \"merge\", \"id\": \"chess\"}");
      send(p, "empty", "{\"op\": \"upsert\", \"id\": \"empty\", \"title\": \"t\", \"text\": \" \"}");
    }
    endAfterSecond = endOffsets();
    long bytesOfSecond = sentBytes;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    second = new SnapshotBuilder(changelogConfig(), new PrintStream(out, true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2, CapturingReporter.configure(new Configuration()))).manifest();
    System.out.println(out.toString(StandardCharsets.UTF_8));
    CapturingReporter.COUNTERS.forEach((id, c) -> {
      if (id.contains(".source.") && id.contains(TOPIC)) {
        sourceMetrics.merge(id.substring(id.lastIndexOf('.') + 1), c.getCount(), Long::sum);
      }
    });
    // The reporter's map is shared by every test class in this JVM: leave it as other classes expect it.
    CapturingReporter.COUNTERS.keySet().removeIf(id -> id.contains(TOPIC));
    sourceMetrics.put("expectedBytes", bytesOfSecond);
    chunksSecond = chunks(second.id());

    try (KafkaProducer<String, String> p = kafka.producer()) {
      upsert(p, "penguins", "Emperor penguins", "Emperor penguins huddle in rotating groups to share warmth.");
      delete(p, "chess");
    }
    third = build(changelogConfig());
  }

  @AfterAll
  static void stopKafka() {
    if (kafka != null) {
      kafka.close();
    }
  }

  static BuildConfig config() {
    BuildConfig config = new BuildConfig();
    config.snapshots = root.toString();
    config.shards = 2;
    config.parallelism = 2;
    config.ingest.maxBadFraction = 0.5; // bad records are part of the fixtures
    config.chunker.size = 48;
    config.chunker.overlap = 8;
    // Parent-child chunking, so the parents docstore is carried over and changed like the shards.
    config.chunker.parents.enabled = true;
    config.chunker.parents.size = 96;
    return config;
  }

  static BuildConfig changelogConfig() {
    BuildConfig config = config();
    config.changelog.topic = TOPIC;
    config.changelog.bootstrap = kafka.bootstrap();
    return config;
  }

  static Manifest build(BuildConfig config) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Manifest m = new SnapshotBuilder(config, new PrintStream(out, true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2)).manifest();
    System.out.println(out.toString(StandardCharsets.UTF_8));
    return m;
  }

  static void send(KafkaProducer<String, String> p, String key, String value) throws Exception {
    kafka.send(p, TOPIC, key, value);
    sentBytes += value.getBytes(StandardCharsets.UTF_8).length;
  }

  static void upsert(KafkaProducer<String, String> p, String id, String title, String text) throws Exception {
    send(p, id, "{\"op\": \"upsert\", \"id\": \"" + id + "\", \"title\": \"" + title
        + "\", \"text\": \"" + text + "\"}");
  }

  static void delete(KafkaProducer<String, String> p, String id) throws Exception {
    send(p, id, "{\"op\": \"delete\", \"id\": \"" + id + "\"}");
  }

  static Map<String, Long> endOffsets() throws Exception {
    try (Admin admin = kafka.admin()) {
      Map<TopicPartition, OffsetSpec> latest = Map.of(new TopicPartition(TOPIC, 0), OffsetSpec.latest(),
          new TopicPartition(TOPIC, 1), OffsetSpec.latest());
      Map<String, Long> end = new TreeMap<>();
      admin.listOffsets(latest).all().get().forEach((tp, i) -> end.put(Integer.toString(tp.partition()), i.offset()));
      return end;
    }
  }

  /** chunk id → doc id + text, over every shard of a snapshot. */
  static Map<String, String> chunks(String id) throws Exception {
    SnapshotLayout layout = new SnapshotLayout(root);
    Map<String, String> all = new TreeMap<>();
    for (int s = 0; s < 2; s++) {
      try (FSDirectory dir = FSDirectory.open(layout.shardDir(id, s)); DirectoryReader r = DirectoryReader.open(dir)) {
        StoredFields fields = r.storedFields();
        for (int d = 0; d < r.maxDoc(); d++) {
          var doc = fields.document(d);
          all.put(doc.get(ShardSchema.CHUNK_ID), doc.get(ShardSchema.DOC_ID) + "|" + doc.get(ShardSchema.TEXT));
        }
      }
    }
    return all;
  }

  /** parent id → doc id + text, over every docstore part of a snapshot. */
  static Map<String, String> parents(String id) throws Exception {
    SnapshotLayout layout = new SnapshotLayout(root);
    Map<String, String> all = new TreeMap<>();
    for (int s = 0; s < 2; s++) {
      try (FSDirectory dir = FSDirectory.open(layout.parentsDir(id, s)); DirectoryReader r = DirectoryReader.open(dir)) {
        StoredFields fields = r.storedFields();
        // A continued part keeps the base's segments: its removed parents are deleted, not merged away.
        Bits live = MultiBits.getLiveDocs(r);
        for (int d = 0; d < r.maxDoc(); d++) {
          if (live != null && !live.get(d)) {
            continue;
          }
          var doc = fields.document(d);
          all.put(doc.get(ParentStoreWriter.PARENT_ID), doc.get(ParentStoreWriter.DOC_ID) + "|"
              + doc.get(ParentStoreWriter.TEXT));
        }
      }
    }
    return all;
  }

  static Set<String> docIds(Map<String, String> chunks) {
    return chunks.values().stream().map(v -> v.substring(0, v.indexOf('|'))).collect(Collectors.toCollection(TreeSet::new));
  }

  static String textOf(Map<String, String> chunks, String docId) {
    return chunks.values().stream().filter(v -> v.startsWith(docId + "|")).collect(Collectors.joining(" "));
  }

  @Test
  void deletedDocumentsAreGoneAndUpsertsReplaceOrAdd() {
    assertEquals(Set.of("bees", "chess", "compilers", "penguins", "sourdough", "tides", "volcano"), docIds(chunksFirst));
    assertEquals(Set.of("chess", "compilers", "glaciers", "penguins", "tides", "volcano"), docIds(chunksSecond));
    assertTrue(textOf(chunksSecond, "tides").contains("zebrafinch"));
    assertFalse(textOf(chunksSecond, "tides").contains("Moon"), "the old text of an upserted document must go");
    assertTrue(textOf(chunksSecond, "compilers").contains("quokka"), "delete then upsert: the upsert wins");
    assertFalse(textOf(chunksSecond, "compilers").contains("Graph colouring"));
  }

  @Test
  void untouchedDocumentsKeepTheirChunks() {
    for (String doc : UNTOUCHED) {
      Map<String, String> a = chunksFirst.entrySet().stream().filter(e -> e.getValue().startsWith(doc + "|"))
          .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
      Map<String, String> b = chunksSecond.entrySet().stream().filter(e -> e.getValue().startsWith(doc + "|"))
          .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
      assertFalse(a.isEmpty(), doc);
      assertEquals(a, b, doc);
    }
  }

  @Test
  void searchSeesTheChanges() throws Exception {
    try (Searcher s = Searcher.builder().root(root).snapshot(second.id()).build()) {
      List<SearchHit> hits = s.search("zebrafinch choir", SearchMode.BM25, 5).results();
      assertEquals("tides", hits.get(0).docId());
      assertTrue(s.search("honeybee colony overwinters", SearchMode.BM25, 10).results().stream()
          .noneMatch(h -> h.docId().equals("bees")));
      assertTrue(s.search("Moon gravity bulges", SearchMode.BM25, 10).results().stream()
          .noneMatch(h -> h.docId().equals("tides")));
      assertEquals("glaciers", s.search("glaciers grinding valleys", SearchMode.DENSE, 3).results().get(0).docId());
    }
  }

  @Test
  void manifestRecordsTheRangeAndTheOps() {
    assertNull(first.changelog());
    Manifest.ChangelogInfo c = second.changelog();
    assertNotNull(c);
    assertEquals(TOPIC, c.topic());
    assertEquals(first.id(), c.base());
    assertEquals(endAfterSecond, new TreeMap<>(c.offsets()));
    assertEquals(Map.of("0", 0L, "1", 0L), new TreeMap<>(c.startOffsets()));
    assertEquals(3, c.upserts(), "tides, glaciers, compilers");
    assertEquals(3, c.deletes(), "bees, sourdough, unicorns");
    assertEquals(1, c.unknownDeletes(), "unicorns");
    assertEquals(2L, second.counters().get(JobCounters.CHANGELOG_SUPERSEDED));
    assertEquals(11L, second.counters().get(JobCounters.RECORDS_READ));
    // Only the upserted documents went through the model; the base's chunks were copied.
    long fresh = chunksSecond.values().stream().filter(v -> v.startsWith("tides|") || v.startsWith("glaciers|")
        || v.startsWith("compilers|")).count();
    assertEquals(fresh, second.embeddings().embedded() + second.embeddings().reused());
    assertEquals(chunksSecond.size(), second.totalChunks());
    assertEquals(third.id(), new SnapshotStore(root).currentId(), "each changelog build published");
    // A changelog build lists no corpus files, and its chunks are positioned in Kafka partitions: no
    // shard of it may have a corpus file left unread by the next build.
    assertEquals(0L, first.counters().get(JobCounters.SHARDS_WITHOUT_POSITIONS), first.counters().toString());
    assertEquals(2L, second.counters().get(JobCounters.SHARDS_WITHOUT_POSITIONS), second.counters().toString());
  }

  @Test
  void badRecordsAreQuarantinedWithTheirReasons() throws Exception {
    Manifest.QuarantineInfo q = second.quarantine();
    assertEquals(3, q.total());
    assertEquals(Map.of("malformed_json", 1L, "unknown_op", 1L, "empty_text", 1L), q.byReason());
    Path dir = Path.of(URI.create(q.location()));
    String written;
    try (Stream<Path> files = Files.walk(dir)) {
      written = files.filter(Files::isRegularFile).map(f -> {
        try {
          return Files.readString(f);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).collect(Collectors.joining());
    }
    assertTrue(written.contains("{this is not json"), written);
    assertTrue(written.contains("kafka://" + TOPIC + "/"), written);
  }

  @Test
  void theParentsDocstoreFollowsTheChanges() throws Exception {
    Map<String, String> before = parents(first.id());
    Map<String, String> after = parents(second.id());
    assertEquals(docIds(chunksSecond), docIds(after));
    assertTrue(textOf(after, "tides").contains("zebrafinch"));
    assertFalse(textOf(after, "tides").contains("Moon"));
    for (String doc : UNTOUCHED) {
      assertEquals(textOf(before, doc), textOf(after, doc), doc);
    }
    assertEquals(after.size(), second.docstore().parents());
    assertEquals(parents(third.id()).size(), third.docstore().parents());
  }

  @Test
  void flinkMetricsPerSource() {
    assertEquals(11L, sourceMetrics.get("recordsRead"), sourceMetrics.toString());
    assertEquals(8L, sourceMetrics.get("recordsParsed"), sourceMetrics.toString());
    assertEquals(3L, sourceMetrics.get("recordsQuarantined"), sourceMetrics.toString());
    assertEquals(sourceMetrics.get("expectedBytes"), sourceMetrics.get("bytesRead"), sourceMetrics.toString());
  }

  @Test
  void theNextBuildContinuesFromTheRecordedOffsets() throws Exception {
    Manifest.ChangelogInfo c = third.changelog();
    assertEquals(second.id(), c.base());
    assertEquals(second.changelog().offsets(), c.startOffsets());
    assertEquals(endOffsets(), new TreeMap<>(c.offsets()));
    assertEquals(2L, third.counters().get(JobCounters.RECORDS_READ), "only the two new records are read");
    assertEquals(1, c.upserts());
    assertEquals(1, c.deletes());
    assertEquals(0, c.unknownDeletes());
    Map<String, String> chunks = chunks(third.id());
    assertEquals(Set.of("compilers", "glaciers", "penguins", "tides", "volcano"), docIds(chunks));
    assertTrue(textOf(chunks, "penguins").contains("rotating groups"));
    assertEquals(textOf(chunksSecond, "glaciers"), textOf(chunks, "glaciers"));
  }

  @Test
  void anEmptyRangeKeepsTheBaseAndAnEmptyRootStartsFromTheEarliestOffsets() throws Exception {
    BuildConfig again = changelogConfig();
    again.publish = false;
    Manifest unchanged = build(again);
    assertEquals(0L, unchanged.counters().get(JobCounters.RECORDS_READ));
    assertEquals(third.changelog().offsets(), unchanged.changelog().offsets());
    assertEquals(chunks(third.id()), chunks(unchanged.id()));

    BuildConfig scratch = changelogConfig();
    scratch.snapshots = work.resolve("from-topic").toString();
    Manifest fromTopic = build(scratch);
    assertNull(fromTopic.changelog().base());
    assertEquals(Map.of("0", 0L, "1", 0L), new TreeMap<>(fromTopic.changelog().startOffsets()));
    assertEquals(third.changelog().offsets(), fromTopic.changelog().offsets());
    assertEquals(4, fromTopic.changelog().unknownDeletes(), "bees, unicorns, sourdough, chess: nothing to delete");
    SnapshotLayout layout = new SnapshotLayout(Path.of(scratch.snapshots));
    Set<String> ids = new TreeSet<>();
    for (int s = 0; s < 2; s++) {
      try (FSDirectory dir = FSDirectory.open(layout.shardDir(fromTopic.id(), s));
          DirectoryReader r = DirectoryReader.open(dir)) {
        for (int d = 0; d < r.maxDoc(); d++) {
          ids.add(r.storedFields().document(d).get(ShardSchema.DOC_ID));
        }
      }
    }
    assertEquals(Set.of("compilers", "glaciers", "penguins", "tides"), ids);
  }

  @Test
  void misconfigurationFailsFastNamingTheOption() throws Exception {
    BuildConfig missing = changelogConfig();
    missing.changelog.topic = "no-such-topic";
    missing.publish = false;
    ConfigException e = assertThrows(ConfigException.class, () -> build(missing));
    assertTrue(e.getMessage().contains("--changelog-topic no-such-topic"), e.getMessage());

    kafka.createTopic("other-topic", 1);
    BuildConfig other = changelogConfig();
    other.changelog.topic = "other-topic";
    other.publish = false;
    e = assertThrows(ConfigException.class, () -> build(other));
    assertTrue(e.getMessage().contains("continues topic '" + TOPIC + "'"), e.getMessage());

    BuildConfig shards = changelogConfig();
    shards.shards = 3;
    shards.publish = false;
    e = assertThrows(ConfigException.class, () -> build(shards));
    assertTrue(e.getMessage().contains("--shards 3"), e.getMessage());

    BuildConfig unreachable = changelogConfig();
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      unreachable.changelog.bootstrap = "127.0.0.1:" + s.getLocalPort();
    }
    unreachable.changelog.timeoutSeconds = 2;
    unreachable.publish = false;
    e = assertThrows(ConfigException.class, () -> build(unreachable));
    assertTrue(e.getMessage().contains("--kafka-bootstrap"), e.getMessage());

    // changelog.properties reach the Kafka client: one it rejects fails the build before the job.
    BuildConfig protocol = changelogConfig();
    protocol.changelog.properties.put("security.protocol", "NOT_A_PROTOCOL");
    protocol.publish = false;
    e = assertThrows(ConfigException.class, () -> build(protocol));
    assertTrue(e.getMessage().contains("changelog.properties") && e.getMessage().contains("NOT_A_PROTOCOL"),
        e.getMessage());
  }
}
