package dev.kiln.snapshot.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.publish.PublishConflictException;
import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.publish.SnapshotRetention;
import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.S3Server;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * {@link S3SnapshotStorage} against a real S3-compatible server (s3proxy 3.0.0 in process): the
 * {@code SnapshotStorage} contract, conditional PUT as the compare-and-set, and the snapshot
 * protocol ({@link SnapshotPublisher}, {@link SnapshotRetention}) unchanged on top of it, including
 * two publishers racing for {@code CURRENT}.
 */
class S3SnapshotStorageITCase {
  static final String BUCKET = "kiln";
  @TempDir static Path work;
  static S3Server server;
  static final AtomicInteger roots = new AtomicInteger();
  static final AtomicInteger ids = new AtomicInteger();

  /** Ids that sort in creation order (real ones made within one second need not). */
  private static String nextId() {
    return String.format(Locale.ROOT, "20261202T%06dZ-000000", ids.incrementAndGet());
  }

  @BeforeAll
  static void start() throws Exception {
    server = new S3Server(work.resolve("blobs"), BUCKET);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  /** A fresh root per test, so tests do not see each other's objects. */
  private static String newRoot() {
    return "s3://" + BUCKET + "/t" + roots.incrementAndGet() + "/snapshots";
  }

  private static S3SnapshotStorage storage(String root, boolean conditional) {
    Map<String, String> s = new HashMap<>(server.settings());
    s.put(S3Settings.CONDITIONAL_WRITES, Boolean.toString(conditional));
    return S3SnapshotStorage.open(root, S3Settings.of(s, Map.of()));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void theServerHonoursConditionalPutHeaders() {
    // Whether compare-and-set can rely on the store: If-None-Match: * and If-Match on a stale ETag
    // must both be refused with 412, and If-Match on the current ETag accepted.
    try (S3Client s3 = S3SnapshotStorage.client(S3Settings.of(server.settings(), Map.of()))) {
      String key = "probe/object";
      String etag = s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("one")).eTag();
      S3Exception exists = assertThrows(S3Exception.class, () -> s3.putObject(
          b -> b.bucket(BUCKET).key(key).ifNoneMatch("*"), RequestBody.fromString("two")));
      assertEquals(412, exists.statusCode());
      String etag2 = s3.putObject(b -> b.bucket(BUCKET).key(key).ifMatch(etag), RequestBody.fromString("two")).eTag();
      S3Exception stale = assertThrows(S3Exception.class, () -> s3.putObject(
          b -> b.bucket(BUCKET).key(key).ifMatch(etag), RequestBody.fromString("three")));
      assertEquals(412, stale.statusCode());
      assertEquals("two", s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String());
      assertFalse(etag.equals(etag2));
    }
  }

  /** The generic contract runs in {@link S3SnapshotStorageContractITCase}; this is S3's own part. */
  @Test
  void keysLiveUnderTheRootsPrefixInTheBucket() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage st = storage(root, true)) {
      st.write("snapshots/x/a", utf8("alpha"));
      assertEquals("alpha", server.get(root.substring(("s3://" + BUCKET + "/").length()) + "/snapshots/x/a"));
    }
  }

  @Test
  void compareAndSetIsAConditionalPut() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage st = storage(root, true)) {
      assertTrue(st.conditionalWrites());
      assertTrue(st.compareAndSet("CURRENT", null, utf8("a")));
      assertFalse(st.compareAndSet("CURRENT", null, utf8("b")), "exists already");
      assertFalse(st.compareAndSet("CURRENT", utf8("x"), utf8("b")), "holds something else");
      assertTrue(st.compareAndSet("CURRENT", utf8("a"), utf8("b")));
      assertArrayEquals(utf8("b"), st.read("CURRENT").orElseThrow());
    }
  }

  @Test
  void aWriterThatChangesTheObjectBetweenReadAndWriteWinsTheRace() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage a = storage(root, true); S3SnapshotStorage b = storage(root, true)) {
      // First write: both saw no object; the rival creates it in between, If-None-Match: * refuses ours.
      b.betweenReadAndWrite = () -> assertCas(a, null, "rival");
      assertFalse(b.compareAndSet("CURRENT", null, utf8("mine")));
      assertArrayEquals(utf8("rival"), a.read("CURRENT").orElseThrow());
      // Replacement: both read "rival"; the rival replaces it first, If-Match on the old ETag refuses ours.
      b.betweenReadAndWrite = () -> assertCas(a, "rival", "rival-2");
      assertFalse(b.compareAndSet("CURRENT", utf8("rival"), utf8("mine")));
      assertArrayEquals(utf8("rival-2"), a.read("CURRENT").orElseThrow());
    }
  }

  @Test
  void withoutConditionalWritesTheSameRaceIsLostSilentlyByTheFirstWriter() throws Exception {
    // The documented limit of the fallback (docs/FORMATS.md): read-compare-write cannot see a write
    // that lands between its read and its write; the later writer overwrites the earlier one.
    String root = newRoot();
    try (S3SnapshotStorage a = storage(root, false); S3SnapshotStorage b = storage(root, false)) {
      assertFalse(b.conditionalWrites());
      b.betweenReadAndWrite = () -> assertCas(a, null, "rival");
      assertTrue(b.compareAndSet("CURRENT", null, utf8("mine")));
      assertArrayEquals(utf8("mine"), a.read("CURRENT").orElseThrow());
      b.betweenReadAndWrite = () -> {};
      assertFalse(b.compareAndSet("CURRENT", utf8("rival"), utf8("late")), "a plain stale compare still fails");
    }
  }

  private static void assertCas(S3SnapshotStorage st, String expected, String update) {
    try {
      assertTrue(st.compareAndSet("CURRENT", expected == null ? null : utf8(expected), utf8(update)));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** Writes a one-shard snapshot (one data file) through the protocol: marker, file, manifest. */
  private static String snapshot(SnapshotPublisher publisher, String parent, String content) throws Exception {
    String id = nextId();
    publisher.begin(id, parent);
    byte[] data = utf8(content);
    publisher.store().storage().write(SnapshotLayout.shardKey(id, 0) + "_0.cfs", data);
    Manifest.FileEntry file = new Manifest.FileEntry("_0.cfs", data.length,
        Checksums.sha256(new ByteArrayInputStream(data)));
    publisher.writeManifest(new Manifest(Manifest.FORMAT_VERSION, id, "2026-12-02T00:00:00Z", parent,
        new Manifest.ModelInfo("m", 2, "mean", true, 16), new Manifest.ChunkerInfo("window", 10, 2, "m"),
        new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100), Map.of(),
        List.of(new Manifest.ShardEntry(0, SnapshotLayout.shardDirName(0), 1, 1, List.of(file)))));
    return id;
  }

  private static SnapshotPublisher publisher(S3SnapshotStorage st) {
    return new SnapshotPublisher(new SnapshotStore(new SnapshotLayout(work.resolve("unused")), st));
  }

  @Test
  void twoPublishersRacingForCurrentOneLoses() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage sa = storage(root, true); S3SnapshotStorage sb = storage(root, true)) {
      SnapshotPublisher a = publisher(sa);
      SnapshotPublisher b = publisher(sb);
      String base = snapshot(a, null, "base");
      a.publish(base, null, false);
      String ida = snapshot(a, base, "from a");
      String idb = snapshot(b, base, "from b");
      // Both started from base and both pass the id check; another writer replaces CURRENT while b is
      // between its conditional read and its PUT. (Publishers of this Kiln also serialise on the
      // root's lock, which b holds here; the conditional PUT is what still catches a writer that
      // bypasses it: an older Kiln, or a lock taken over as stale.)
      sb.betweenReadAndWrite = () -> {
        try {
          assertTrue(sa.compareAndSet(SnapshotLayout.CURRENT, utf8(base + "\n"), utf8(ida + "\n")));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      };
      PublishConflictException e = assertThrows(PublishConflictException.class, () -> b.publish(idb, base, false));
      assertTrue(e.getMessage().contains("NOT published") && e.getMessage().contains(ida), e.getMessage());
      assertEquals(ida, a.store().currentId());
      // The loser's snapshot stays complete; with force (or 'kiln snapshots publish') it can still go live.
      sb.betweenReadAndWrite = () -> {};
      b.publish(idb, base, true);
      assertEquals(idb, b.store().currentId());
    }
  }

  @Test
  void theRootLockIsAnObjectHeldForTheActionOnly() throws Exception {
    String root = newRoot();
    String prefix = root.substring(("s3://" + BUCKET + "/").length());
    try (S3SnapshotStorage st = storage(root, true)) {
      String seen = st.locked(SnapshotLayout.CURRENT, () -> {
        try {
          // Re-entrant: a compare-and-set inside the action does not wait for itself.
          assertTrue(st.compareAndSet(SnapshotLayout.CURRENT, null, utf8("x")));
          return server.get(prefix + "/CURRENT.lock");
        } catch (Exception e) {
          throw new IOException(e);
        }
      });
      assertTrue(seen != null && seen.contains("@"), "the lock names its holder: " + seen);
      assertEquals(null, server.get(prefix + "/CURRENT.lock"), "released after the action");
    }
  }

  @Test
  void listRollbackAndGcWorkUnchangedOnS3() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage st = storage(root, true)) {
      SnapshotPublisher p = publisher(st);
      String one = snapshot(p, null, "one");
      p.publish(one, null, false);
      String two = snapshot(p, one, "two");
      p.publish(two, one, false);
      String three = snapshot(p, two, "three");
      p.publish(three, two, false);
      String dead = nextId();
      st.write(SnapshotLayout.shardKey(dead, 0) + "_0.cfs", utf8("no marker, no manifest: orphaned"));
      SnapshotStore store = p.store();
      assertEquals(List.of(one, two, three), store.list());
      assertEquals(List.of(one, two, three, dead), store.allIds());
      assertEquals(two, p.rollback(null));
      assertEquals(two, store.currentId());
      p.publish(three, two, false);
      SnapshotRetention gc = new SnapshotRetention(store);
      SnapshotRetention.Plan plan = gc.plan(1, 3_600_000L);
      assertEquals(List.of(one), plan.expired());
      assertEquals(List.of(dead), plan.orphans());
      gc.execute(plan);
      assertEquals(List.of(two, three), store.allIds());
      assertFalse(st.exists(SnapshotLayout.shardKey(one, 0) + "_0.cfs"));
      store.open(three);
      // A flipped byte in the bucket fails verification, naming the file.
      String key = SnapshotLayout.shardKey(three, 0) + "_0.cfs";
      byte[] bytes = st.read(key).orElseThrow();
      bytes[0] ^= 0x01;
      st.write(key, bytes);
      SnapshotException e = assertThrows(SnapshotException.class, () -> store.open(three));
      assertTrue(e.getMessage().contains("shard-00000/_0.cfs: sha256"), e.getMessage());
    }
  }

  @Test
  void deleteTreeRemovesEveryObjectDeepestFirst() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage st = storage(root, true)) {
      for (String key : List.of("snapshots/x/a", "snapshots/x/shard-00000/_0.cfs", "snapshots/x/shard-00000/_0.si",
          "snapshots/x/embeddings/part-0.parquet", "snapshots/y/kept")) {
        st.write(key, utf8("v"));
      }
      long started = System.nanoTime();
      st.deleteTree("snapshots/x/");
      // s3proxy's file system store keeps directory markers and takes 10 s to refuse removing one that
      // still holds objects: the contents go first.
      assertTrue(System.nanoTime() - started < 5_000_000_000L, "no directory was removed before its contents");
      assertEquals(List.of("y"), st.list("snapshots/"));
      assertEquals(List.of(), st.list("snapshots/x/"));
    }
  }
}
