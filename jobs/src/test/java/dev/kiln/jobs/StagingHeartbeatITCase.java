package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.KilnProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live build on "another host" (a real {@code kiln build} JVM with its own host id, so gc cannot
 * judge it by its pid) is kept by gc for as long as its marker's heartbeat is fresh — however long
 * ago it started — and collected once the heartbeat stops.
 */
class StagingHeartbeatITCase {
  /** gc's grace period in the test: 0.002 h = 7.2 s; the build beats every 200 ms. */
  private static final String STALE_HOURS = "0.002";
  private static final long STALE_MILLIS = 7_200;

  @TempDir Path work;

  private static void await(String what, long seconds, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
      Thread.onSpinWait();
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
