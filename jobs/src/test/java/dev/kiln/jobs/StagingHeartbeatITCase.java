package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.FlinkTestCluster;
import dev.kiln.testing.KilnProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live build on "another host" (a real {@code kiln build} JVM with its own host id, so gc cannot
 * judge it by its pid) is kept by gc for as long as its marker's heartbeat is fresh — however long
 * ago it started — and collected once the heartbeat stops. A detached build on a real cluster keeps
 * its heartbeat itself, from the JobManager, with no client attached.
 */
class StagingHeartbeatITCase {
  /** gc's grace period in the test: 0.002 h = 7.2 s; the build beats every 200 ms. */
  private static final String STALE_HOURS = "0.002";
  private static final long STALE_MILLIS = 7_200;

  @TempDir Path work;

  private static void await(String what, long seconds, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
      Thread.sleep(50); // polling a condition, leaving the cores to the processes under test
    }
  }

  /**
   * {@code flink run -d} on a JobManager and a TaskManager as separate JVMs: the client returns at once;
   * the job takes the marker over (its owner is the JobManager's process from then on, so gc does not judge
   * the build by a client that is gone) and beats it while a slow stage runs (the TaskManager pauses in the
   * embed stage), so gc past the grace period keeps the build; resumed, the job publishes, and no beat
   * writes the marker back after the commit removed it.
   */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void gcDuringADetachedBuildKeepsIt_theJobBeatsItsOwnMarker() throws Exception {
    Path root = work.resolve("detached");
    Path fixture = Path.of(StagingHeartbeatITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    Path config = work.resolve("detached.yaml");
    Files.writeString(config, String.join("\n", "corpus: [" + fixture + "]", "snapshots: " + root, "shards: 1",
        "parallelism: 1", "chunker: {size: 48, overlap: 8}", "index: {recall-probe-samples: 5}",
        "ingest: {max-bad-fraction: 0.5}", ""));
    Path paused = work.resolve("embed.paused");
    try (FlinkTestCluster cluster = new FlinkTestCluster(work.resolve("cluster"), List.of())) {
      cluster.startTaskManager("tm", List.of("-Dkiln.test.pause-at=embed", "-Dkiln.test.pause-marker=" + paused,
          "-Dkiln.test.pause-resume=stdin"));
      cluster.awaitTaskManagers(1, 120);
      // Read by the client's StagingHeartbeat, which hands its interval to the job.
      System.setProperty("kiln.staging.heartbeat-ms", "200");
      try {
        cluster.runDetached(FlinkTestCluster.jobJar(), "--config", config.toString());
      } finally {
        System.clearProperty("kiln.staging.heartbeat-ms");
      }
      long detachedAt = System.currentTimeMillis();
      await("the job to reach the embed stage", 120, () -> Files.exists(paused));
      SnapshotStore store = new SnapshotStore(root);
      String id;
      try (Stream<Path> dirs = Files.list(root.resolve("snapshots"))) {
        id = dirs.map(p -> p.getFileName().toString()).findFirst().orElseThrow();
      }
      // The takeover runs on the JobManager's source coordinator thread as the job starts, while the tasks
      // are deployed: nothing orders it before the TaskManager's pause, so wait for it (bounded).
      long jobManager = cluster.pid("jobmanager");
      try {
        await("the JobManager to take the marker over", 60,
            () -> store.stagingMarker(id).map(m -> m.pid() == jobManager).orElse(false));
      } catch (AssertionError e) {
        throw new AssertionError("the JobManager's process owns the marker: " + store.stagingMarker(id)
            + jobManagerSays(work.resolve("cluster"), "staging"), e);
      }
      StagingMarker taken = store.stagingMarker(id).orElseThrow();
      long started = Instant.parse(taken.started()).toEpochMilli();
      await("the build to be older than the grace period", 60,
          () -> System.currentTimeMillis() - started > STALE_MILLIS + 1_000);
      StagingMarker now = store.stagingMarker(id).orElseThrow();
      long beat = Instant.parse(now.heartbeat()).toEpochMilli();
      assertTrue(beat > detachedAt && System.currentTimeMillis() - beat < STALE_MILLIS,
          "beaten by the job since its client returned: " + now);

      CliRun gc = CliRun.of("snapshots", "gc", "--keep", "1", "--stale-hours", STALE_HOURS, "--snapshots",
          root.toString());
      assertEquals(0, gc.exitCode(), gc.err());
      assertTrue(gc.out().contains("building: [" + id + "]"), gc.out());
      assertTrue(Files.exists(store.layout().snapshotDir(id)), "a live detached build's data stays");

      try {
        // The embed stage pauses at each chunk: a line on the TaskManager's stdin lets each go on.
        await("the detached build to publish", 120, () -> {
          resume(cluster);
          return store.current().map(id::equals).orElse(false);
        });
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + cluster.logs(), e);
      }
      Path staging = store.layout().snapshotDir(id).resolve(SnapshotLayout.STAGING);
      // A beat that read the marker just before the commit removed it writes it back, finds the manifest and
      // removes it again (StagingHeartbeat): for that moment STAGING exists beside a published snapshot.
      await("the commit's STAGING to be gone", 30, () -> !Files.exists(staging));
      Thread.sleep(1_000); // five beats' time: none may write the marker back after the commit
      assertFalse(Files.exists(staging), "no beat wrote STAGING back after the commit");
    }
  }

  private static void resume(FlinkTestCluster cluster) {
    try {
      cluster.resume("tm");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The JobManager's log lines about {@code topic}, for a failure message. */
  private static String jobManagerSays(Path clusterDir, String topic) {
    try (Stream<String> lines = Files.lines(clusterDir.resolve("jobmanager.log"))) {
      return lines.filter(l -> l.toLowerCase(Locale.ROOT).contains(topic)).limit(20)
          .reduce("\nJobManager:", (a, b) -> a + "\n" + b);
    } catch (IOException e) {
      return " (no JobManager log: " + e + ")";
    }
  }

  @Test
  void gcKeepsABuildWithAFreshHeartbeatAndCollectsItOnceTheHeartbeatStops() throws Exception {
    Path root = work.resolve("snapshots");
    Path corpus = work.resolve("corpus.jsonl");
    Path fixture = Path.of(StagingHeartbeatITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    Files.write(corpus, Files.readAllLines(fixture).subList(0, 2));
    Path config = work.resolve("build.yaml");
    Files.writeString(config, String.join("\n", "corpus: [" + corpus + "]", "snapshots: " + root, "shards: 1",
        "parallelism: 1", "chunker: {size: 48, overlap: 8}", ""));
    KilnProcess build = KilnProcess.start(work, "build", "embed", false,
        List.of("-D" + StagingMarker.HOST_ID_PROPERTY + "=another-host", "-Dkiln.staging.heartbeat-ms=200"),
        List.of("build", "--config", config.toString()));
    try {
      build.awaitPause(180);
      SnapshotStore store = new SnapshotStore(root);
      String id;
      try (Stream<Path> dirs = Files.list(root.resolve("snapshots"))) {
        id = dirs.map(p -> p.getFileName().toString()).findFirst().orElseThrow();
      }
      StagingMarker first = store.stagingMarker(id).orElseThrow();
      assertEquals("another-host", first.hostId());
      long started = Instant.parse(first.started()).toEpochMilli();
      // Older than the grace period by its start: only the heartbeat can vouch for it now.
      await("the build to be older than the grace period", 60,
          () -> System.currentTimeMillis() - started > STALE_MILLIS + 1_000);
      StagingMarker now = store.stagingMarker(id).orElseThrow();
      assertTrue(Instant.parse(now.heartbeat()).toEpochMilli() > started, "the marker was beaten: " + now);
      assertTrue(first.sameBuild(now), "same owner and nonce");

      CliRun gc = CliRun.of("snapshots", "gc", "--keep", "1", "--stale-hours", STALE_HOURS, "--snapshots",
          root.toString());
      assertEquals(0, gc.exitCode(), gc.err());
      assertTrue(gc.out().contains("building: [" + id + "]"), gc.out());
      assertTrue(Files.exists(store.layout().snapshotDir(id)), "a live build's data stays");

      assertEquals(137, build.kill9());
      long lastBeat = Instant.parse(store.stagingMarker(id).orElseThrow().heartbeat()).toEpochMilli();
      await("the heartbeat to go stale", 60, () -> System.currentTimeMillis() - lastBeat > STALE_MILLIS + 1_000);
      CliRun gc2 = CliRun.of("snapshots", "gc", "--keep", "1", "--stale-hours", STALE_HOURS, "--snapshots",
          root.toString());
      assertEquals(0, gc2.exitCode(), gc2.err());
      assertTrue(gc2.out().contains("removed:  [" + id + "]"), gc2.out());
      assertFalse(Files.exists(store.layout().snapshotDir(id)));
    } finally {
      if (!build.exited()) {
        build.kill9();
      }
    }
  }
}
