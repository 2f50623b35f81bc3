package dev.kiln.jobs;

import static dev.kiln.jobs.IncrementalBuildITCase.ADDED;
import static dev.kiln.jobs.IncrementalBuildITCase.CHANGED;
import static dev.kiln.jobs.IncrementalBuildITCase.DOCS;
import static dev.kiln.jobs.IncrementalBuildITCase.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.index.DocFingerprintFile;
import dev.kiln.operators.JobCounters;
import dev.kiln.publish.SnapshotRetention;
import dev.kiln.route.ShardRouter;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.testing.S3Server;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incremental corpus builds on a remote snapshots root, a bucket of a real S3-compatible server
 * (s3proxy on 127.0.0.1): the second build continues the bucket's CURRENT — its parse subtasks
 * download only the shards' fingerprint files, its writers the base shards — rewrites only what
 * changed, and publishes exactly what a full build of the new corpus holds. A damaged fingerprint
 * object in the bucket fails the next build, which publishes nothing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RemoteIncrementalITCase {
  static final String BUCKET = "kiln";
  static final String ROOT = "s3://" + BUCKET + "/snapshots";

  @TempDir static Path work;
  static S3Server server;
  static Map<String, String> s3;
  static Path corpus;
  static Manifest first;
  static Manifest second;
  static String secondOutput;
  static Manifest full;

  @BeforeAll
  static void buildInTheBucketThenChangeThenBuildAgain() throws Exception {
    server = new S3Server(work.resolve("blobs"), BUCKET);
    s3 = server.settings();
    corpus = work.resolve("corpus.jsonl");
    List<String> lines = IncrementalBuildITCase.firstCorpus();
    Files.write(corpus, lines);
    first = build(ROOT, c -> {}, new ByteArrayOutputStream());
    Files.write(corpus, IncrementalBuildITCase.changedCorpus(lines));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    second = build(ROOT, c -> {}, out);
    secondOutput = out.toString(StandardCharsets.UTF_8);
    full = build(work.resolve("full").toString(), c -> c.incremental = "off", new ByteArrayOutputStream());
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  static Manifest build(String snapshots, Consumer<BuildConfig> tweak, ByteArrayOutputStream out) throws Exception {
    return SmallBuilds.build(corpus.toString(), snapshots, c -> {
      c.filesystem.putAll(s3);
      tweak.accept(c);
    }, out);
  }


  static SnapshotMirror mirror(Path local) {
    return new SnapshotMirror(RemoteStorages.open(ROOT, s3), ROOT, local);
  }

  @Test
  @Order(1)
  void theSecondBuildContinuedTheBucketsCurrentAndRewroteOnlyWhatChanged() throws Exception {
    assertTrue(secondOutput.contains("+ incremental: yes, over CURRENT " + first.id()), secondOutput);
    assertTrue(secondOutput.contains("on the remote root"), secondOutput);
    Map<String, Long> c = second.counters();
    assertEquals(DOCS - 2, c.get(JobCounters.INCREMENTAL_UNCHANGED), "recognised from the fingerprint files: " + c);
    assertEquals(DOCS - 2, c.get(JobCounters.INCREMENTAL_KEPT), c.toString());
    assertEquals(1, c.get(JobCounters.INCREMENTAL_REMOVED), c.toString());
    Map<String, String> ref = IncrementalBuildITCase.contents(work.resolve("full"), full);
    long fresh = ref.keySet().stream().filter(id -> id.startsWith(CHANGED + "#") || id.startsWith(ADDED + "#")).count();
    assertEquals(fresh, c.get(JobCounters.CHUNKS), "only the changed and the added document were chunked: " + c);
  }

  @Test
  @Order(2)
  void theBucketsSnapshotHoldsExactlyWhatAFullBuildHoldsAndItsBaseStillVerifies() throws Exception {
    // Each download hashes every file against its manifest.
    Path local = mirror(work.resolve("mirror")).localize(second.id());
    assertEquals(IncrementalBuildITCase.contents(work.resolve("full"), full),
        IncrementalBuildITCase.contents(local, second));
    Path base = mirror(work.resolve("mirror-base")).localize(first.id());
    assertEquals(DOCS, IncrementalBuildITCase.contents(base, first).keySet().stream()
        .map(id -> id.substring(0, id.indexOf('#'))).distinct().count());
    for (int shard = 0; shard < 2; shard++) {
      assertTrue(DocFingerprintFile.open(new SnapshotLayout(local).shardDir(second.id(), shard)).size() > 0);
    }
    // A searcher's copy leaves the fingerprint files out (no searcher reads them) and opens without them.
    Path serving = mirror(work.resolve("serving")).localizeForServing(second.id());
    for (int shard = 0; shard < 2; shard++) {
      assertFalse(DocFingerprintFile.present(new SnapshotLayout(serving).shardDir(second.id(), shard)));
    }
    try (Searcher s = Searcher.builder().root(serving).build()) {
      assertEquals(CHANGED, s.bm25("zeppelin airship hangar", 1).get(0).docId());
    }
  }

  @Test
  @Order(2)
  void theRebuildReferencesTheBasesUnchangedFilesAndTheBucketHoldsOnlyWhatItWrote() throws Exception {
    assertEquals(2, second.formatVersion());
    SnapshotStorage storage = RemoteStorages.open(ROOT, s3);
    long own = 0;
    long referenced = 0;
    for (Manifest.ShardEntry shard : second.shards()) {
      for (Manifest.FileEntry f : shard.files()) {
        String ownKey = SnapshotLayout.snapshotKey(second.id()) + shard.directory() + "/" + f.name();
        if (f.snapshot() == null) {
          own += f.size();
          assertEquals(f.size(), storage.size(ownKey), ownKey);
        } else {
          assertEquals(first.id(), f.snapshot(), "a reference names the snapshot that wrote the file: " + f);
          referenced += f.size();
          assertFalse(storage.exists(ownKey), "a referenced file is not copied: " + ownKey);
          assertEquals(f.size(), storage.size(SnapshotLayout.fileKey(second.id(), shard.directory(), f)));
        }
      }
    }
    assertTrue(referenced > own, "the unchanged segments (" + referenced + " bytes) are referenced, only "
        + own + " bytes were uploaded");
    assertEquals(own, second.counters().get(JobCounters.SHARD_BYTES_UPLOADED), second.counters().toString());
    long read = second.counters().getOrDefault(JobCounters.BASE_BYTES_READ, 0L);
    assertTrue(read > 0 && read <= referenced + own, "the writers read " + read + " bytes of their base");
    long stored = storedBytes(storage, SnapshotLayout.snapshotKey(second.id()));
    long manifestBytes = storage.size(SnapshotLayout.manifestKey(second.id()));
    assertTrue(stored < referenced + manifestBytes, "the bucket grew by " + stored + " bytes for the rebuild");

    // A searcher that holds the base downloads only the files the rebuild wrote.
    SnapshotMirror follower = mirror(work.resolve("follower"));
    follower.localizeForServing(first.id());
    follower.localizeForServing(second.id());
    SnapshotMirror.Localized got = follower.last();
    long servingOwn = second.shards().stream().flatMap(s -> s.servingFiles().stream())
        .filter(f -> f.snapshot() == null).mapToLong(Manifest.FileEntry::size).sum();
    assertEquals(servingOwn, got.downloadedBytes(), got.toString());
    assertEquals(got.bytes() - servingOwn, got.linkedBytes(), got.toString());
  }

  @Test
  @Order(3)
  void aReferencedFileMissingOrCorruptInTheBucketIsNamedByVerificationAndRefusedByAFollower() throws Exception {
    Manifest.ShardEntry shard = second.shards().stream()
        .filter(s -> s.files().stream().anyMatch(f -> f.snapshot() != null)).findFirst().orElseThrow();
    Manifest.FileEntry shared = shard.files().stream().filter(f -> f.snapshot() != null)
        .max(Comparator.comparingLong(Manifest.FileEntry::size)).orElseThrow();
    String key = "snapshots/" + SnapshotLayout.fileKey(second.id(), shard.directory(), shared);
    byte[] good = server.bytes(key);
    SnapshotStore store = RemoteStorages.store(ROOT, s3);
    try {
      byte[] bad = good.clone();
      bad[bad.length / 2] ^= 0x01;
      server.put(key, bad);
      SnapshotException e = assertThrows(SnapshotException.class,
          () -> mirror(work.resolve("refused")).localizeForServing(second.id()));
      assertTrue(e.getMessage().contains("failed verification")
          && e.getMessage().contains(shard.directory() + "/" + shared.name()), e.getMessage());
      assertTrue(store.verifyAndRecord(second.id(), "verify").stream()
          .anyMatch(p -> p.startsWith(shard.directory() + "/" + shared.name() + ": sha256")));

      server.blobs().removeBlob(BUCKET, key);
      assertEquals(List.of(shard.directory() + "/" + shared.name() + ": missing"), store.verify(second));
    } finally {
      server.put(key, good);
    }
    assertEquals(List.of(), store.verify(second));
  }

  /** Bytes of every object under {@code prefix} (ending in '/'). */
  static long storedBytes(SnapshotStorage storage, String prefix) throws Exception {
    long bytes = 0;
    for (String name : storage.list(prefix)) {
      String key = prefix + name;
      bytes += storage.exists(key) ? storage.size(key) : storedBytes(storage, key + "/");
    }
    return bytes;
  }

  @Test
  @Order(4)
  void aDamagedFingerprintObjectFailsTheNextBuildWhichPublishesNothing() throws Exception {
    int shard = ShardRouter.shardOf(CHANGED, 2);
    String key = "snapshots/snapshots/" + second.id() + "/" + SnapshotLayout.shardDirName(shard) + "/"
        + DocFingerprintFile.NAME;
    byte[] bytes = server.bytes(key);
    bytes[bytes.length / 2] ^= 0x01;
    server.put(key, bytes);
    List<String> lines = new ArrayList<>(Files.readAllLines(corpus));
    lines.add(line("d98", "One more document, about tide tables."));
    Files.write(corpus, lines);

    Exception e = assertThrows(Exception.class, () -> build(ROOT, c -> c.restartAttempts = 0,
        new ByteArrayOutputStream()));
    StringWriter trace = new StringWriter();
    e.printStackTrace(new PrintWriter(trace));
    assertTrue(trace.toString().contains("failed verification") && trace.toString().contains(DocFingerprintFile.NAME),
        trace.toString());
    assertEquals(second.id(), mirror(work.resolve("mirror-after")).remoteCurrent(), "CURRENT did not move");
  }

  @Test
  @Order(5)
  void gcOnTheBucketKeepsTheFilesLaterSnapshotsShareWithTheOnesItRemoves() throws Exception {
    // Undo the damage of the test before, then a third build continues the second.
    int shard = ShardRouter.shardOf(CHANGED, 2);
    String key = "snapshots/snapshots/" + second.id() + "/" + SnapshotLayout.shardDirName(shard) + "/"
        + DocFingerprintFile.NAME;
    byte[] bytes = server.bytes(key);
    bytes[bytes.length / 2] ^= 0x01;
    server.put(key, bytes);
    Manifest third = build(ROOT, c -> {}, new ByteArrayOutputStream());
    assertEquals(second.id(), third.parent());
    SnapshotStore store = RemoteStorages.store(ROOT, s3);
    List<String> shared = new ArrayList<>();
    for (Manifest m : List.of(second, third)) {
      for (Manifest.ShardEntry s : m.shards()) {
        s.files().stream().filter(f -> first.id().equals(f.snapshot())).forEach(f -> shared.add(f.name()));
      }
    }
    assertFalse(shared.isEmpty(), "the later snapshots reference files of the first");

    // --keep 0: the published third and the second before it stay; the first goes, but not the files
    // the other two read from its directory.
    SnapshotRetention gc = new SnapshotRetention(store);
    SnapshotRetention.Outcome done = gc.run(gc.plan(0, 3_600_000), 3_600_000);
    assertTrue(done.removed().contains(first.id()), done.toString());
    assertTrue(done.retired().contains(first.id()), done.toString());
    assertEquals(List.of(second.id(), third.id()), store.list());
    for (String id : store.list()) {
      assertEquals(List.of(), store.verify(store.manifest(id)), "every byte of " + id + ", from the bucket");
    }
    assertEquals(StagingMarker.RETIRED, store.stagingMarker(first.id()).orElseThrow().state());
  }
}
