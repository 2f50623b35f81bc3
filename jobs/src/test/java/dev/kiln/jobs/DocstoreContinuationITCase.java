package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.operators.JobCounters;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.search.parents.ParentExpander;
import dev.kiln.search.parents.ParentHit;
import dev.kiln.search.parents.ParentStore;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.EmbeddedKafka;
import dev.kiln.testing.S3Server;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nightly changelog builds under parent-child chunking continue the parents docstore instead of
 * copying it, on a local root and on an {@code s3://} root (s3proxy): two nights over a base of 60
 * documents, each changing a few. The new snapshots list the base's unchanged docstore files as
 * references to the snapshot that wrote them; the bucket is sent only the files a night wrote, and the
 * writers read only part of the remote base docstore. Searching with parents then returns the fresh
 * parent of an upserted document, none of a deleted one, and the base's parent of an untouched one,
 * and {@code kiln snapshots gc --keep 1} leaves snapshots that still verify, byte for byte.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DocstoreContinuationITCase {
  static final String TOPIC = "docstore-nights";
  static final String BUCKET = "kiln";
  static final String S3_ROOT = "s3://" + BUCKET + "/snapshots";
  static final String BLOCK_BYTES = "kiln.remote.block-bytes";
  static final int DOCS = 60;
  static final String UPSERTED = "doc-07";
  static final String DELETED = "doc-12";
  static final String ADDED = "doc-new";
  static final String UNTOUCHED = "doc-20";
  static final String SECOND_NIGHT = "doc-30";

  @TempDir static Path work;
  static EmbeddedKafka kafka;
  static S3Server s3;
  static Map<String, String> roots;
  static final Map<String, List<Manifest>> built = new TreeMap<>();

  @BeforeAll
  static void buildABaseAndTwoNightsOnEachRoot() throws Exception {
    // Blocks of 4 KiB, not 1 MiB: this test's docstore parts are a few KiB each, as a real part's
    // files are many blocks; what the writers read of the base is then told apart from the base.
    System.setProperty(BLOCK_BYTES, "4096");
    kafka = new EmbeddedKafka(work);
    kafka.createTopic(TOPIC, 2);
    s3 = new S3Server(work.resolve("blobs"), BUCKET);
    Path corpus = work.resolve("corpus.jsonl");
    Random r = new Random(44);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < DOCS; i++) {
      lines.add(line(String.format("doc-%02d", i), "Document " + i + ". " + words(r, 150)));
    }
    Files.write(corpus, lines);
    roots = Map.of("local", work.resolve("local").toString(), "s3", S3_ROOT);
    for (Map.Entry<String, String> root : roots.entrySet()) {
      BuildConfig c = config(root.getValue());
      c.corpus = List.of(corpus.toString());
      built.computeIfAbsent(root.getKey(), k -> new ArrayList<>()).add(build(c));
    }
    try (KafkaProducer<String, String> p = kafka.producer()) {
      kafka.send(p, TOPIC, UPSERTED, upsert(UPSERTED, "The zebrafinch choir sings to the tides."));
      kafka.send(p, TOPIC, DELETED, "{\"op\": \"delete\", \"id\": \"" + DELETED + "\"}");
      kafka.send(p, TOPIC, ADDED, upsert(ADDED, "A quokka lantern lights the harbour at dusk."));
    }
    night();
    try (KafkaProducer<String, String> p = kafka.producer()) {
      kafka.send(p, TOPIC, SECOND_NIGHT, upsert(SECOND_NIGHT, "Marmalade glaciers drift past the lighthouse."));
    }
    night();
  }

  static void night() throws Exception {
    for (Map.Entry<String, String> root : roots.entrySet()) {
      BuildConfig c = config(root.getValue());
      c.changelog.topic = TOPIC;
      c.changelog.bootstrap = kafka.bootstrap();
      built.get(root.getKey()).add(build(c));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    System.clearProperty(BLOCK_BYTES);
    if (kafka != null) {
      kafka.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  static String words(Random r, int n) {
    String[] syllables = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "pe", "da", "gu", "ho", "ji", "be", "fo"};
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      for (int s = 0; s < 2 + r.nextInt(2); s++) {
        b.append(syllables[r.nextInt(syllables.length)]);
      }
      b.append(i % 12 == 11 ? ". " : " ");
    }
    return b.toString();
  }

  static String line(String id, String text) {
    return "{\"_id\": \"" + id + "\", \"title\": \"Title of " + id + "\", \"text\": \"" + text + "\"}";
  }

  static String upsert(String id, String text) {
    return "{\"op\": \"upsert\", \"id\": \"" + id + "\", \"title\": \"Title of " + id + "\", \"text\": \"" + text
        + "\"}";
  }

  static BuildConfig config(String root) {
    BuildConfig c = new BuildConfig();
    c.snapshots = root;
    c.shards = 2;
    c.parallelism = 2;
    c.chunker.size = 48;
    c.chunker.overlap = 8;
    c.chunker.parents.enabled = true;
    c.chunker.parents.size = 96;
    if (root.startsWith("s3://")) {
      c.filesystem.putAll(s3.settings());
    }
    return c;
  }

  static Manifest build(BuildConfig c) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      return new SnapshotBuilder(c, new PrintStream(out, true, StandardCharsets.UTF_8))
          .build(BuildJob.localEnvironment(2)).manifest();
    } finally {
      System.out.println(out.toString(StandardCharsets.UTF_8));
    }
  }

  static long bytes(List<Manifest.FileEntry> files, boolean own) {
    return files.stream().filter(f -> (f.snapshot() == null) == own).mapToLong(Manifest.FileEntry::size).sum();
  }

  static SnapshotStore store(String root) {
    return root.equals("s3") ? RemoteStorages.store(S3_ROOT, s3.settings()) : new SnapshotStore(Path.of(roots.get(root)));
  }

  /** A local snapshots root holding snapshot {@code id} of {@code root}: the root itself, or a verified download. */
  static Path local(String root, String id, String copy) throws Exception {
    if (root.equals("local")) {
      return Path.of(roots.get(root));
    }
    return new SnapshotMirror(RemoteStorages.open(S3_ROOT, s3.settings()), S3_ROOT, work.resolve(copy)).localize(id);
  }

  @Test
  @Order(1)
  void eachNightReferencesTheUnchangedDocstoreFilesOfTheSnapshotThatWroteThem() throws Exception {
    for (String root : roots.keySet()) {
      Manifest base = built.get(root).get(0);
      long size = bytes(base.docstore().files(), true);
      for (Manifest night : built.get(root).subList(1, 3)) {
        List<Manifest.FileEntry> files = night.docstore().files();
        long own = bytes(files, true);
        long referenced = bytes(files, false);
        System.out.printf("%s %s: docstore %d bytes, %d own, %d referenced (base docstore %d bytes)%n", root,
            night.id(), own + referenced, own, referenced, size);
        for (Manifest.FileEntry f : files) {
          if (f.snapshot() != null) {
            // The owner is the earlier snapshot that wrote the file, and lists it as its own (no chains).
            Manifest owner = built.get(root).stream().filter(m -> m.id().equals(f.snapshot())).findFirst()
                .orElseThrow(() -> new AssertionError(root + ": " + f + " names no earlier snapshot"));
            assertTrue(owner.docstore().files().contains(new Manifest.FileEntry(f.name(), f.size(), f.sha256())),
                root + ": " + f + " is " + owner.id() + "'s own file");
          }
        }
        assertTrue(files.stream().anyMatch(f -> base.id().equals(f.snapshot())), root + ": the base's files are shared");
        assertTrue(own * 5 < size, root + ": the night wrote " + own + " docstore bytes of the base's " + size);
        assertTrue(referenced > size / 2, root + ": " + referenced + " bytes of the base docstore are shared");
      }
    }
  }

  @Test
  @Order(1)
  void eachNightKeepsTheBaseShardSegmentsAndSendsOnlyTheShardFilesItWrote() throws Exception {
    // A changelog night once merged every shard down to one segment: it rewrote (and uploaded) the whole
    // index for a change of a few documents.
    for (String root : roots.keySet()) {
      for (Manifest night : built.get(root).subList(1, 3)) {
        long own = 0;
        long shared = 0;
        for (Manifest.ShardEntry s : night.shards()) {
          for (Manifest.FileEntry f : s.files()) {
            if (f.snapshot() == null) {
              own += f.size();
            } else {
              shared += f.size();
            }
          }
        }
        System.out.printf("%s %s: shards %d bytes, %d own, %d referenced%n", root, night.id(), own + shared, own,
            shared);
        assertTrue(own * 2 < shared, root + ": the night wrote " + own + " shard bytes and shares " + shared);
      }
    }
  }

  @Test
  @Order(1)
  void theBucketIsSentOnlyTheDocstoreFilesANightWroteAndTheBaseIsReadInPart() throws Exception {
    SnapshotStorage storage = RemoteStorages.open(S3_ROOT, s3.settings());
    Manifest base = built.get("s3").get(0);
    long size = bytes(base.docstore().files(), true);
    for (Manifest night : built.get("s3").subList(1, 3)) {
      long own = 0;
      for (Manifest.FileEntry f : night.docstore().files()) {
        String ownKey = SnapshotLayout.snapshotKey(night.id()) + SnapshotLayout.PARENTS + "/" + f.name();
        if (f.snapshot() == null) {
          own += f.size();
          assertEquals(f.size(), storage.size(ownKey), ownKey);
        } else {
          assertFalse(storage.exists(ownKey), "a referenced docstore file is not copied: " + ownKey);
        }
      }
      Map<String, Long> c = night.counters();
      assertEquals(own, c.get(JobCounters.PARENTS_BYTES_UPLOADED), c.toString());
      long read = c.getOrDefault(JobCounters.PARENTS_BASE_BYTES_READ, 0L);
      assertTrue(read > 0 && read < size / 2, "the docstore writers read " + read + " of the base docstore's " + size);
    }
    Manifest local = built.get("local").get(1);
    assertFalse(local.counters().containsKey(JobCounters.PARENTS_BYTES_UPLOADED), "a local root uploads nothing");
  }

  @Test
  @Order(1)
  void searchingWithParentsFindsTheFreshParentsAndNoStaleOnes() throws Exception {
    for (String root : roots.keySet()) {
      Manifest night = built.get(root).get(2);
      Manifest base = built.get(root).get(0);
      Path at = local(root, night.id(), root + "-night");
      Path baseAt = local(root, base.id(), root + "-base");
      try (Searcher searcher = Searcher.builder().root(at).snapshot(night.id()).build();
          ParentStore store = ParentStore.open(at, searcher.manifest());
          ParentStore before = ParentStore.open(baseAt, base)) {
        assertEquals(night.docstore().parents(), store.size(), root);
        List<ParentHit> hits = ParentExpander.expand(searcher.search("zebrafinch choir", SearchMode.BM25, 8).results(),
            store, 2);
        assertEquals(UPSERTED, hits.get(0).docId(), root + ": " + hits);
        assertTrue(hits.get(0).text().contains("zebrafinch choir"), root + ": " + hits.get(0));
        assertTrue(store.get(UPSERTED + "#p1").isEmpty(), root + ": the upserted document's old parent is gone");
        assertTrue(before.get(UPSERTED + "#p1").isPresent(), root + ": the base had it");
        assertTrue(store.get(DELETED + "#p0").isEmpty(), root + ": no parent of a deleted document");
        assertTrue(store.get(ADDED + "#p0").orElseThrow().text().contains("quokka lantern"), root);
        assertTrue(store.get(SECOND_NIGHT + "#p0").orElseThrow().text().contains("Marmalade glaciers"), root);
        assertEquals(before.get(UNTOUCHED + "#p1").orElseThrow(), store.get(UNTOUCHED + "#p1").orElseThrow(), root);
        List<ParentHit> added = ParentExpander.expand(
            searcher.search("quokka lantern harbour", SearchMode.BM25, 8).results(), store, 1);
        assertEquals(ADDED, added.get(0).docId(), root + ": " + added);
      }
    }
  }

  @Test
  @Order(2)
  void gcKeepOneRemovesTheBaseAndLeavesSnapshotsThatVerify() throws Exception {
    StringBuilder yaml = new StringBuilder("filesystem:\n");
    s3.settings().forEach((k, v) -> yaml.append("  ").append(k).append(": \"").append(v).append("\"\n"));
    Path s3Config = Files.writeString(work.resolve("s3.yaml"), yaml);
    for (String root : roots.keySet()) {
      List<String> args = new ArrayList<>(List.of("snapshots", "gc", "--keep", "1", "--snapshots", roots.get(root)));
      if (root.equals("s3")) {
        args.addAll(List.of("--config", s3Config.toString()));
      }
      CliRun gc = CliRun.of(args.toArray(new String[0]));
      assertEquals(0, gc.exitCode(), root + ": " + gc.out() + gc.err());
      SnapshotStore store = store(root);
      List<Manifest> snapshots = built.get(root);
      assertFalse(store.list().contains(snapshots.get(0).id()), root + ": the base went: " + store.list());
      assertEquals(List.of(snapshots.get(1).id(), snapshots.get(2).id()), store.list(), root);
      for (String id : store.list()) {
        assertEquals(List.of(), store.verify(store.manifest(id)), root + ": every byte of " + id);
      }
      Path at = local(root, snapshots.get(2).id(), root + "-after-gc");
      try (Searcher searcher = Searcher.builder().root(at).snapshot(snapshots.get(2).id()).build();
          ParentStore parents = ParentStore.open(at, searcher.manifest())) {
        assertTrue(parents.get(UNTOUCHED + "#p0").isPresent(), root + ": a parent the base wrote is still read");
      }
    }
  }
}
