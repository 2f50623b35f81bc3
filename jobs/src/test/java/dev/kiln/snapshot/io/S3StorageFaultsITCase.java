package dev.kiln.snapshot.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.publish.SnapshotRetention;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.FaultyS3Proxy;
import dev.kiln.testing.FaultyS3Proxy.Fault;
import dev.kiln.testing.FaultyS3Proxy.Op;
import dev.kiln.testing.S3Server;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link S3SnapshotStorage} through a {@link FaultyS3Proxy} that injects one scripted fault at a
 * time: each test names the request that fails and how, and what the storage must make of it.
 */
@Timeout(120)
class S3StorageFaultsITCase {
  static final String BUCKET = "kiln";
  @TempDir static Path work;
  static S3Server server;
  static FaultyS3Proxy proxy;
  static final AtomicInteger roots = new AtomicInteger();

  @BeforeAll
  static void start() throws Exception {
    server = new S3Server(work.resolve("blobs"), BUCKET);
    proxy = FaultyS3Proxy.in(server, FaultyS3Proxy.Plan.none(), 200);
  }

  @AfterAll
  static void stop() throws Exception {
    if (proxy != null) {
      proxy.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void clean() {
    proxy.plan(FaultyS3Proxy.Plan.none());
    proxy.reset();
  }

  private static String newRoot() {
    return "s3://" + BUCKET + "/f" + roots.incrementAndGet() + "/snapshots";
  }

  private static S3SnapshotStorage storage(String root) {
    return S3SnapshotStorage.open(root, S3Settings.of(proxy.settings(server), Map.of()));
  }

  private static S3SnapshotStorage storage(String root, int maxAttempts) {
    Map<String, String> s = new HashMap<>(proxy.settings(server));
    s.put(S3Settings.MAX_ATTEMPTS, Integer.toString(maxAttempts));
    return S3SnapshotStorage.open(root, S3Settings.of(s, Map.of()));
  }

  private static String bucketKey(String root, String key) {
    return root.substring(("s3://" + BUCKET + "/").length()) + "/" + key;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The first {@code times} requests of {@code op} on a key ending in {@code suffix} from now on meet
   * {@code fault}; the rest go through.
   */
  private static FaultyS3Proxy.Plan first(Op op, String suffix, Fault fault, int times) {
    AtomicInteger left = new AtomicInteger(times);
    return r -> r.op() == op && r.key().endsWith(suffix) && left.getAndDecrement() > 0 ? fault : Fault.NONE;
  }

  private static FaultyS3Proxy.Plan first(Op op, String suffix, Fault fault) {
    return first(op, suffix, fault, 1);
  }

  private static byte[] data(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + 7);
    }
    return b;
  }

  @Test
  void aTruncatedGetIsNeverReadAsTheWholeObject() throws Exception {
    String root = newRoot();
    byte[] bytes = data(10_000);
    server.put(bucketKey(root, "snapshots/x/file"), bytes);
    try (S3SnapshotStorage st = storage(root)) {
      proxy.plan(first(Op.GET, "file", Fault.TRUNCATE));
      assertArrayEquals(bytes, st.read("snapshots/x/file").orElseThrow());
      assertEquals(1, proxy.injected(Fault.TRUNCATE));
      proxy.plan(first(Op.GET, "file", Fault.TRUNCATE));
      try (InputStream in = st.open("snapshots/x/file")) {
        assertArrayEquals(bytes, in.readAllBytes());
      }
      proxy.plan(first(Op.GET, "file", Fault.TRUNCATE));
      assertArrayEquals(bytes, st.read("snapshots/x/file", 20_000).orElseThrow(), "the size-capped read streams");
      assertEquals(3, proxy.injected(Fault.TRUNCATE));
    }
  }

  @Test
  void aStreamResetMidBodyResumesWhereItBroke() throws Exception {
    String root = newRoot();
    byte[] bytes = data(100_000);
    server.put(bucketKey(root, "snapshots/x/big"), bytes);
    try (S3SnapshotStorage st = storage(root)) {
      proxy.plan(first(Op.GET, "big", Fault.RESET_MID_BODY, 3));
      try (InputStream in = st.open("snapshots/x/big")) {
        assertArrayEquals(bytes, in.readAllBytes());
      }
      assertEquals(3, proxy.injected(Fault.RESET_MID_BODY));
    }
  }

  @Test
  void aStreamThatKeepsBreakingFailsNamingTheObject() throws Exception {
    String root = newRoot();
    server.put(bucketKey(root, "snapshots/x/big"), data(50_000));
    try (S3SnapshotStorage st = storage(root, 3)) {
      proxy.plan(r -> r.op() == Op.GET ? Fault.RESET_MID_BODY : Fault.NONE);
      IOException e = assertThrows(IOException.class, () -> {
        try (InputStream in = st.open("snapshots/x/big")) {
          in.readAllBytes();
        }
      });
      assertTrue(e.getMessage().contains(root + "/snapshots/x/big") && e.getMessage().contains("broke 4 times"),
          e.getMessage());
    }
  }

  @Test
  void anObjectReplacedWhileAStreamResumesIsRefusedNotSpliced() throws Exception {
    String root = newRoot();
    String key = bucketKey(root, "snapshots/x/moving");
    server.put(key, data(50_000));
    try (S3SnapshotStorage st = storage(root)) {
      AtomicInteger gets = new AtomicInteger();
      proxy.plan(r -> {
        if (r.op() != Op.GET) {
          return Fault.NONE;
        }
        if (gets.getAndIncrement() == 0) {
          return Fault.RESET_MID_BODY;
        }
        server.put(key, new byte[50_000]); // replaced before the read resumes
        return Fault.NONE;
      });
      IOException e = assertThrows(IOException.class, () -> {
        try (InputStream in = st.open("snapshots/x/moving")) {
          in.readAllBytes();
        }
      });
      assertTrue(e.getMessage().contains("replaced while it was read"), e.getMessage());
    }
  }

  @Test
  void transientErrorsAreRetried() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage st = storage(root)) {
      for (Fault f : new Fault[] {Fault.ERROR_500, Fault.ERROR_503, Fault.SLOW_DOWN, Fault.RESET_BEFORE,
          Fault.LOSE_RESPONSE, Fault.TRUNCATE, Fault.RESET_MID_BODY}) {
        proxy.reset();
        // Three failures in a row per request: more than the SDK's default of three attempts in all.
        proxy.plan(r -> r.occurrence() < 3 ? f : Fault.NONE);
        st.write("snapshots/x/" + f, utf8("value"));
        assertArrayEquals(utf8("value"), st.read("snapshots/x/" + f).orElseThrow());
        assertTrue(st.exists("snapshots/x/" + f));
        assertEquals(5, st.size("snapshots/x/" + f));
        assertEquals(1, st.list("snapshots/x/").stream().filter(n -> n.equals(f.toString())).count());
        st.delete("snapshots/x/" + f);
        assertFalse(server.blobs().blobExists(BUCKET, bucketKey(root, "snapshots/x/" + f)));
        assertTrue(proxy.failures() >= 6, f + ": " + proxy.injected());
        assertTrue(proxy.retryCount() >= 6, f + ": " + proxy.retries());
      }
    }
  }

  @Test
  void aFirstWriteWhoseAnswerWasLostIsAWin() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage st = storage(root)) {
      proxy.plan(first(Op.PUT, "CURRENT", Fault.LOSE_RESPONSE));
      assertTrue(st.compareAndSet("CURRENT", null, utf8("a\n")), "our own write, not a rival's");
      assertEquals(1, proxy.injected(Fault.LOSE_RESPONSE));
      assertArrayEquals(utf8("a\n"), server.bytes(bucketKey(root, "CURRENT")));
    }
  }

  @Test
  void aReplacementWhoseAnswerWasLostIsAWin() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage st = storage(root)) {
      assertTrue(st.compareAndSet("CURRENT", null, utf8("a\n")));
      proxy.plan(first(Op.PUT, "CURRENT", Fault.LOSE_RESPONSE));
      assertTrue(st.compareAndSet("CURRENT", utf8("a\n"), utf8("b\n")), "our own write, not a rival's");
      assertEquals(1, proxy.injected(Fault.LOSE_RESPONSE));
      assertArrayEquals(utf8("b\n"), server.bytes(bucketKey(root, "CURRENT")));
    }
  }

  @Test
  void aRivalsWriteIsStillALoss() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage st = storage(root)) {
      server.put(bucketKey(root, "CURRENT"), utf8("rival\n"));
      proxy.plan(first(Op.PUT, "CURRENT", Fault.LOSE_RESPONSE));
      assertFalse(st.compareAndSet("CURRENT", utf8("old\n"), utf8("b\n")));
      assertFalse(st.compareAndSet("CURRENT", null, utf8("b\n")));
      assertArrayEquals(utf8("rival\n"), server.bytes(bucketKey(root, "CURRENT")));
    }
  }

  @Test
  void aLockWhoseAnswerWasLostIsHeldNotWaitedFor() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage st = storage(root)) {
      proxy.plan(first(Op.PUT, "CURRENT.lock", Fault.LOSE_RESPONSE));
      long started = System.nanoTime();
      String got = st.locked("CURRENT", () -> "held");
      assertEquals("held", got);
      assertTrue(System.nanoTime() - started < 20_000_000_000L, "took the lock without waiting for itself");
      assertEquals(1, proxy.injected(Fault.LOSE_RESPONSE));
      assertEquals(null, server.bytes(bucketKey(root, "CURRENT.lock")), "released");
    }
  }

  @Test
  void anotherHoldersLockIsStillWaitedFor() throws Exception {
    String root = newRoot();
    server.put(bucketKey(root, "CURRENT.lock"), utf8("1@elsewhere 2026-12-07T00:00:00Z 00"));
    try (S3SnapshotStorage st = storage(root)) {
      AtomicInteger tries = new AtomicInteger();
      proxy.plan(r -> {
        if (r.op() == Op.PUT && r.key().endsWith("CURRENT.lock") && tries.incrementAndGet() == 3) {
          server.blobs().removeBlob(BUCKET, bucketKey(root, "CURRENT.lock")); // the other holder lets go
        }
        return r.op() == Op.PUT && r.key().endsWith("CURRENT.lock") && tries.get() == 1 ? Fault.LOSE_RESPONSE
            : Fault.NONE;
      });
      assertEquals("held", st.locked("CURRENT", () -> "held"));
      assertTrue(tries.get() >= 3, "waited for the other holder: " + tries);
    }
  }

  @Test
  void aConditionalPutThatFailsEveryAttemptFailsCleanlyAndChangesNothing() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage st = storage(root, 4)) {
      assertTrue(st.compareAndSet("CURRENT", null, utf8("a\n")));
      proxy.plan(r -> r.op() == Op.PUT ? Fault.ERROR_500 : Fault.NONE);
      IOException e = assertThrows(IOException.class, () -> st.compareAndSet("CURRENT", utf8("a\n"), utf8("b\n")));
      assertTrue(e.getMessage().contains("cannot conditionally write " + root + "/CURRENT"), e.getMessage());
      assertArrayEquals(utf8("a\n"), server.bytes(bucketKey(root, "CURRENT")));
      assertEquals(4, proxy.injected(Fault.ERROR_500), "every attempt was made");
    }
  }

  @Test
  void aConditionalPutCarriedOutOnItsLastAttemptWithTheAnswerLostIsAWin() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage st = storage(root)) {
      assertTrue(st.compareAndSet("CURRENT", null, utf8("a\n")));
      proxy.plan(r -> r.op() == Op.PUT ? Fault.LOSE_RESPONSE : Fault.NONE);
      assertTrue(st.compareAndSet("CURRENT", utf8("a\n"), utf8("b\n")));
      assertArrayEquals(utf8("b\n"), server.bytes(bucketKey(root, "CURRENT")));
    }
  }

  @Test
  void gcNeverTakesABuildWhoseMarkerItCannotReadForADeadOne() throws Exception {
    String root = newRoot();
    try (S3SnapshotStorage st = storage(root, 2)) {
      SnapshotStore store = new SnapshotStore(new SnapshotLayout(work.resolve("unused")), st);
      String id = "20261207T000000Z-000001";
      new SnapshotPublisher(store).begin(id, null); // a build of this very process: alive
      String data = SnapshotLayout.shardKey(id, 0) + "_0.cfs";
      st.write(data, utf8("written by the running build"));
      SnapshotRetention gc = new SnapshotRetention(store);
      assertEquals(List.of(id), gc.plan(1, 3_600_000L).building());

      proxy.plan(r -> r.op() == Op.GET && r.key().endsWith("/" + SnapshotLayout.STAGING) ? Fault.ERROR_500 : Fault.NONE);
      SnapshotException e = assertThrows(SnapshotException.class, () -> gc.plan(1, 3_600_000L));
      // gc names the marker it could not read and stops (retried for a second first: SnapshotRetention).
      assertTrue(e.getMessage().contains(SnapshotLayout.stagingKey(id)) && e.getMessage().contains("gc"),
          e.getMessage());
      assertTrue(server.blobs().blobExists(BUCKET, bucketKey(root, data)), "the running build's data is kept");
    }
  }
}
