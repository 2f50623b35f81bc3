package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.publish.PublishConflictException;
import dev.kiln.publish.RootManifests;
import dev.kiln.publish.SharedSnapshots;
import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.publish.SnapshotRetention;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.testing.KilnProcess;
import dev.kiln.testing.S3Server;
import dev.kiln.testing.TestSeeds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * gc by reference under attack, on a local root, an S3 bucket (s3proxy) and HDFS (a MiniDFSCluster): a
 * seeded random sequence of synthetic builds (format-2 manifests that reference their base's files;
 * some left running, some killed, some failed), publishes, rollbacks and gcs — in this JVM, and as real
 * {@code kiln snapshots gc} processes SIGKILLed at a random pause point or moment, run two at once, or
 * paused outside the root's lock while this JVM builds, publishes and collects. After every step every
 * complete snapshot verifies with every byte hashed, and every running build's base is complete; at the
 * end, the builds finished, a last gc leaves nothing that no snapshot lists. The seed is
 * {@link TestSeeds}'; {@code -Dkiln.gc.chaos.steps=N} sets the steps per root (default 32; on HDFS,
 * whose every write takes a MiniDFSCluster round trip or three, three quarters of that). Every fourth
 * step gives a gc snapshots to remove and kills it at the next of its pause points, or has a build
 * begin from one of them while that gc holds the lock, so that each is hit on every store whatever the
 * seed.
 */
@ExtendWith(TestSeeds.class)
class GcByReferenceITCase {
  private static final int STEPS = Integer.getInteger("kiln.gc.chaos.steps", 32);
  /** gc's pause points, in the order it reaches them; the first is inside the root's lock. */
  private static final List<String> POINTS = List.of("gc-remove", "gc-data", "gc-sweep", "gc-retire");
  private static final String BUCKET = "chaos";

  @TempDir static Path work;
  static S3Server s3;
  static MiniDFSCluster dfs;

  @BeforeAll
  static void servers() throws Exception {
    s3 = new S3Server(work.resolve("blobs"), BUCKET);
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, work.resolve("dfs").toString());
    for (String key : List.of("dfs.namenode.rpc-address", "dfs.namenode.http-address", "dfs.datanode.address",
        "dfs.datanode.http.address", "dfs.datanode.ipc.address")) {
      conf.set(key, "127.0.0.1:0");
    }
    conf.setBoolean("dfs.permissions.enabled", false);
    dfs = new MiniDFSCluster.Builder(conf, work.resolve("dfs").toFile()).numDataNodes(1).format(true).build();
    dfs.waitActive();
  }

  @AfterAll
  static void stop() throws Exception {
    if (s3 != null) {
      s3.close();
    }
    if (dfs != null) {
      dfs.shutdown(true);
    }
  }

  /** A root under test: its URI for the command line, its store here, and the command line's extra options. */
  private record Root(String name, String uri, SnapshotStore store, List<String> options, int steps) {}

  @Test
  void onALocalRoot(Random random) throws Exception {
    Path dir = work.resolve("local");
    new Chaos(new Root("local", dir.toString(), new SnapshotStore(dir), List.of(), STEPS), random, "0000a1").run();
  }

  @Test
  void onS3(Random random) throws Exception {
    String uri = "s3://" + BUCKET + "/root/snapshots";
    StringBuilder yaml = new StringBuilder("filesystem:\n");
    s3.settings().forEach((k, v) -> yaml.append("  ").append(k).append(": \"").append(v).append("\"\n"));
    Path config = Files.writeString(work.resolve("s3.yaml"), yaml);
    new Chaos(new Root("s3", uri, RemoteStorages.store(uri, s3.settings()), List.of("--config", config.toString()), STEPS),
        random, "0000b2").run();
  }

  @Test
  void onHdfs(Random random) throws Exception {
    String uri = "hdfs://127.0.0.1:" + dfs.getNameNodePort() + "/root/snapshots";
    new Chaos(new Root("hdfs", uri, RemoteStorages.store(uri, Map.of()), List.of(), STEPS * 3 / 4), random, "0000c3").run();
  }

  /** One root's random run. */
  private static final class Chaos {
    private final Root root;
    private final Random random;
    private final SnapshotStore store;
    private final SharedSnapshots writer;
    private final SnapshotPublisher publisher;
    private final List<SharedSnapshots.Build> running = new ArrayList<>();
    private final List<String> log = new ArrayList<>();
    private final long t0 = System.nanoTime();
    private int processes;
    private int kills;

    Chaos(Root root, Random random, String suffix) {
      this.root = root;
      this.random = random;
      this.store = root.store();
      this.writer = new SharedSnapshots(store, random, suffix);
      this.publisher = writer.publisher();
    }

    void run() throws Exception {
      try {
        build();
        for (int step = 0; step < root.steps(); step++) {
          int r = random.nextInt(100);
          if (step % 4 == 3) {
            // Every fourth step a gc with work to do is killed at the next of its pause points, or races a
            // build's start, in turn.
            withWork(step / 4 % (POINTS.size() + 1));
          } else if (r < 30) {
            childGc();
          } else {
            here(r);
          }
          check();
        }
        // The builds end (commit or die), and a last gc at once, then one that sweeps what the first retired.
        while (!running.isEmpty()) {
          endBuild();
        }
        gcHere(1);
        gcHere(1);
        check();
        assertNothingUnlisted();
      } catch (Throwable e) {
        throw new AssertionError(root.name() + ": failed after these steps:\n  " + String.join("\n  ", log), e);
      }
      log.forEach(System.out::println);
      System.out.printf("%s: %d steps, %d gc processes (%d killed), %.1f s%n", root.name(), root.steps(), processes, kills,
          (System.nanoTime() - t0) / 1e9);
    }

    /** Adds a line to what a failure prints, with the seconds since the start. */
    private void note(String line) {
      log.add(String.format(Locale.ROOT, "%6.1f s  %s", (System.nanoTime() - t0) / 1e9, line));
    }

    /** One step in this JVM, picked by {@code r} in [30, 100). */
    private void here(int r) throws Exception {
      if (r < 52) {
        build();
      } else if (r < 62) {
        beginBuild();
      } else if (r < 72) {
        endBuild();
      } else if (r < 80) {
        rollback();
      } else if (r < 85) {
        publishAny();
      } else {
        gcHere(random.nextInt(3));
      }
    }

    /** A build from CURRENT that commits, published (over its base) more often than not. */
    private void build() {
      build(random.nextDouble(), random.nextInt(10) < 7);
    }

    /** A build from CURRENT sharing about {@code share} of its base's files. */
    private void build(double share, boolean publish) {
      String base = store.current().orElse(null);
      String id;
      try {
        id = writer.complete(base, share);
      } catch (SnapshotException e) {
        note("build from " + base + " refused: " + e.getMessage());
        assertTrue(e.getMessage().contains("was removed"), e.getMessage());
        return;
      }
      boolean published = publish;
      if (publish) {
        try {
          publisher.publishBuilt(id, base, false);
        } catch (PublishConflictException e) {
          published = false;
        }
      }
      note("build " + id + " from " + base + (published ? ", published" : ", not published"));
    }

    /**
     * A build that starts and stays running: from CURRENT, or (as --base-snapshot) from any complete
     * snapshot, or from any directory at all — one gc removed, say, which the build must refuse.
     */
    private void beginBuild() {
      List<String> ids = random.nextBoolean() ? store.list() : store.allIds();
      String base = random.nextBoolean() || ids.isEmpty() ? store.current().orElse(null)
          : ids.get(random.nextInt(ids.size()));
      boolean complete = base == null || store.hasManifest(base);
      try {
        running.add(writer.begin(base).write(random.nextDouble()));
        note("begin " + running.get(running.size() - 1).id() + " from " + base);
        assertTrue(complete, "a build began from " + base + ", which has no manifest");
      } catch (SnapshotException e) {
        note("begin from " + base + " refused: " + e.getMessage());
        assertTrue(!complete && e.getMessage().contains("was removed"), e.getMessage());
      }
    }

    /** A running build commits (and maybe publishes, forced), dies, or fails and discards its snapshot. */
    private void endBuild() {
      if (running.isEmpty()) {
        return;
      }
      SharedSnapshots.Build b = running.remove(random.nextInt(running.size()));
      int r = random.nextInt(4);
      if (r < 2) {
        b.commit();
        if (r == 0) {
          publisher.publishBuilt(b.id(), store.current().orElse(null), true);
        }
        note("commit " + b.id() + (r == 0 ? ", published" : ""));
      } else if (r == 2) {
        b.die();
        note("die " + b.id());
      } else {
        note("fail " + b.id() + ", discarded: " + publisher.discardUnpublished(b.id()));
      }
    }

    private void rollback() {
      List<String> complete = store.list();
      if (complete.size() < 2 || store.current().isEmpty()) {
        return;
      }
      String to = random.nextBoolean() ? null : complete.get(random.nextInt(complete.size()));
      try {
        note("rollback to " + publisher.rollback(to));
      } catch (SnapshotException e) {
        note("rollback to " + to + " refused: " + e.getMessage());
      }
    }

    /** {@code kiln snapshots publish ID} of any complete snapshot: every byte verified first. */
    private void publishAny() {
      List<String> complete = store.list();
      if (complete.isEmpty()) {
        return;
      }
      String id = complete.get(random.nextInt(complete.size()));
      publisher.publish(id);
      note("publish " + id);
    }

    private void gcHere(int keep) {
      SnapshotRetention gc = new SnapshotRetention(store);
      SnapshotRetention.Outcome done = gc.run(gc.plan(keep, 3_600_000), 3_600_000);
      note("gc --keep " + keep + " here: removed " + done.removed() + ", retired " + done.retired()
          + (done.deferred().isEmpty() ? "" : ", deferred " + done.deferred() + ": " + done.problem()));
      assertEquals(List.of(), done.deferred(), done.problem());
    }

    /**
     * Two more published builds, each sharing most of its base's files (so that {@code --keep 0} has
     * snapshots to remove whose files the ones it keeps reference), perhaps a build left running, then a gc killed at pause point {@code turn}
     * or, for the last turn, racing a build's start.
     */
    private void withWork(int turn) throws Exception {
      build(0.9, true);
      build(0.9, true);
      if (random.nextBoolean()) {
        beginBuild();
      }
      check();
      if (turn == POINTS.size()) {
        while (!running.isEmpty()) {
          endBuild(); // their bases would be kept, leaving the build nothing to race for
        }
        check();
        buildBeginsWhileGcHoldsTheLock(0);
        return;
      }
      String point = POINTS.get(turn);
      KilnProcess gc = start(0, point, false);
      if (pausedOrDone(gc, point)) {
        kill(gc, "at " + point);
      }
    }

    /** A real {@code kiln snapshots gc} process, let run, killed, doubled or paused while this JVM goes on. */
    private void childGc() throws Exception {
      int keep = random.nextInt(3);
      switch (random.nextInt(6)) {
        case 0 -> {
          String point = POINTS.get(random.nextInt(POINTS.size()));
          KilnProcess gc = start(keep, point, false);
          if (pausedOrDone(gc, point)) {
            kill(gc, "at " + point);
          }
        }
        case 1 -> {
          // Outside the lock: this JVM builds, publishes, rolls back and collects meanwhile.
          String point = POINTS.get(1 + random.nextInt(POINTS.size() - 1));
          KilnProcess gc = start(keep, point, true);
          if (pausedOrDone(gc, point)) {
            for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
              here(30 + random.nextInt(70));
              check();
            }
            if (random.nextBoolean()) {
              gc.resume();
              finished(gc, "resumed from " + point);
            } else {
              kill(gc, "at " + point + " after this JVM went on");
            }
          }
        }
        case 2 -> {
          KilnProcess gc = start(keep, null, false);
          // A gc process starts in about 2 s and is done about half a second later.
          Thread.sleep(1200 + random.nextInt(1800));
          if (gc.exited()) {
            finished(gc, "not killed: done first");
          } else {
            kill(gc, "at a random moment");
          }
        }
        case 3 -> {
          KilnProcess one = start(keep, null, false);
          KilnProcess two = start(random.nextInt(3), null, false);
          finished(one, "first of two at once");
          finished(two, "second of two at once");
        }
        case 4 -> buildBeginsWhileGcHoldsTheLock(keep);
        default -> finished(start(keep, null, false), "run to the end");
      }
    }

    /**
     * The race at a build's start: gc has read the markers and holds the lock, about to delete the
     * manifest of a snapshot it found no running build continuing; a build from that very snapshot
     * writes its marker now and waits for the lock to check its base. It must find the base gone and
     * stop, or find it whole — never begin on a base that then disappears.
     */
    private void buildBeginsWhileGcHoldsTheLock(int keep) throws Exception {
      List<String> expired = new SnapshotRetention(store).plan(keep, Long.MAX_VALUE).expired();
      if (expired.isEmpty()) {
        finished(start(keep, null, false), "run to the end (nothing a build could race for)");
        return;
      }
      String base = expired.get(random.nextInt(expired.size()));
      KilnProcess gc = start(keep, "gc-remove", true);
      if (!pausedOrDone(gc, "gc-remove")) {
        return;
      }
      List<String> before = store.allIds();
      ExecutorService thread = Executors.newSingleThreadExecutor();
      try {
        Future<SharedSnapshots.Build> begun = thread.submit(() -> writer.begin(base));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (store.allIds().equals(before) && !begun.isDone()) {
          assertTrue(System.nanoTime() < deadline, "the build wrote no marker");
          Thread.sleep(20);
        }
        gc.resume();
        finished(gc, "resumed from gc-remove while a build from " + base + " began");
        try {
          running.add(begun.get(60, TimeUnit.SECONDS).write(random.nextDouble()));
          note("  the build from " + base + " began: " + running.get(running.size() - 1).id());
          assertTrue(store.hasManifest(base), "a build began on " + base + ", which gc removed");
        } catch (ExecutionException e) {
          note("  the build from " + base + " stopped: " + e.getCause().getMessage());
          assertTrue(e.getCause() instanceof SnapshotException && e.getCause().getMessage().contains("was removed")
              && !store.hasManifest(base), e.getCause().toString());
        }
      } finally {
        thread.shutdownNow();
      }
    }

    private KilnProcess start(int keep, String point, boolean resumable) throws IOException {
      processes++;
      List<String> args = new ArrayList<>(List.of("snapshots", "gc", "--keep", Integer.toString(keep), "--snapshots",
          root.uri()));
      args.addAll(root.options());
      String name = root.name() + "-gc-" + processes;
      note("gc process " + name + " --keep " + keep + (point == null ? "" : ", pausing at " + point));
      return KilnProcess.start(work, name, point, resumable, args);
    }

    /** Waits for the process to pause at its point (true) or to finish without reaching it (false, exit 0). */
    private boolean pausedOrDone(KilnProcess gc, String point) throws Exception {
      Path marker = work.resolve(root.name() + "-gc-" + processes + ".paused");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (!Files.exists(marker)) {
        if (gc.exited()) {
          finished(gc, "never reached " + point);
          return false;
        }
        assertTrue(System.nanoTime() < deadline, "gc neither paused nor finished:\n" + gc.log());
        Thread.sleep(20);
      }
      return true;
    }

    private void finished(KilnProcess gc, String how) throws Exception {
      int code = gc.waitFor(180);
      note("  " + how + ": exit " + code);
      assertEquals(0, code, gc.log());
    }

    /** SIGKILL; a lock object the process held is then a dead holder's, which the store would take over after 10 min. */
    private void kill(KilnProcess gc, String how) throws Exception {
      assertEquals(137, gc.kill9());
      kills++;
      note("  killed " + how);
      store.storage().delete(SnapshotLayout.CURRENT + ".lock");
    }

    /**
     * The invariants: every complete snapshot verifies, every byte hashed; the snapshot each running
     * build continues is complete.
     */
    private void check() {
      for (String id : store.list()) {
        List<String> problems = store.verify(store.manifest(id));
        assertEquals(List.of(), problems, "snapshot " + id + " verifies");
      }
      for (SharedSnapshots.Build b : running) {
        String base = store.stagingMarker(b.id()).orElseThrow().base();
        assertTrue(base == null || store.hasManifest(base), "the base " + base + " of running build " + b.id());
      }
    }

    /** After the last gc: no directory without a manifest holds an object no complete snapshot lists. */
    private void assertNothingUnlisted() throws IOException {
      SnapshotStorage storage = store.storage();
      Set<String> listed = new HashSet<>(RootManifests.read(store).storedKeys(storage));
      for (String id : store.allIds()) {
        if (store.hasManifest(id)) {
          continue;
        }
        assertEquals(StagingMarker.RETIRED, store.stagingMarker(id).map(StagingMarker::state).orElse(null), id);
        for (String key : objects(storage, SnapshotLayout.snapshotKey(id))) {
          assertTrue(key.equals(SnapshotLayout.stagingKey(id)) || listed.contains(key), key + " is referenced");
        }
      }
    }

    private static List<String> objects(SnapshotStorage storage, String prefix) throws IOException {
      List<String> out = new ArrayList<>();
      for (String name : storage.list(prefix)) {
        List<String> under = storage.list(prefix + name + "/");
        if (under.isEmpty()) {
          out.add(prefix + name);
        } else {
          out.addAll(objects(storage, prefix + name + "/"));
        }
      }
      return out;
    }
  }
}
