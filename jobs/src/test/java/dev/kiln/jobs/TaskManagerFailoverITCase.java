package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.FlinkTestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failover with real processes: a JobManager and TaskManagers as separate JVMs; the TaskManager that
 * runs an embed subtask is killed with {@code kill -9} while it embeds. The job restarts the failed
 * region on a spare TaskManager, commits and publishes a snapshot identical to an undisturbed build of
 * the same corpus on the same cluster: the same chunk ids per shard, the same vectors, the same top
 * results.
 */
class TaskManagerFailoverITCase {
  private static final String[] QUERIES = {"sourdough starter lactobacilli", "stratovolcanoes viscous magma",
      "which birds keep their eggs warm on their feet in the polar night"};

  @TempDir Path work;

  private Path config(Path root) throws Exception {
    Path fixture = Path.of(TaskManagerFailoverITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    Path file = work.resolve(root.getFileName() + ".yaml");
    Files.writeString(file, String.join("\n",
        "corpus: [" + fixture + "]", "snapshots: " + root, "shards: 3", "parallelism: 2",
        "chunker: {size: 48, overlap: 8}", "index: {recall-probe-samples: 5}", "ingest: {max-bad-fraction: 0.5}",
        "restart-attempts: 3", "restart-delay-ms: 1000", ""));
    return file;
  }

  @Test
  void aTaskManagerKilledWhileEmbeddingIsReplacedAndTheSnapshotIsTheUndisturbedOne() throws Exception {
    Path marker = work.resolve("victim-paused");
    try (FlinkTestCluster cluster = new FlinkTestCluster(work.resolve("cluster"),
        List.of("heartbeat.interval: 1000", "heartbeat.timeout: 6000"))) {
      // The victim stops on its embed subtask's first chunk (PausePoint) so the kill lands mid-embed. It is
      // the only TaskManager (one slot; a real cluster's batch job runs stage by stage) until it pauses,
      // so an embed subtask surely lands on it: with a second one up, both embed subtasks could run there.
      cluster.startTaskManager("tm-victim", List.of("-Dkiln.test.pause-at=embed", "-Dkiln.test.pause-marker=" + marker));
      cluster.awaitTaskManagers(1, 120);
      Path jar = FlinkTestCluster.jobJar();

      Path killedRoot = work.resolve("killed");
      Path killedConfig = config(killedRoot);
      long t0 = System.nanoTime();
      CompletableFuture<Void> build = CompletableFuture.runAsync(() -> {
        try {
          cluster.run(jar, "--config", killedConfig.toString());
        } catch (Exception e) {
          throw new IllegalStateException("the build failed: " + e, e);
        }
      });
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      while (!Files.exists(marker)) {
        assertFalse(build.isDone(), "the build ended before the victim embedded anything: " + cluster.logs());
        assertTrue(System.nanoTime() < deadline, "the victim never started embedding: " + cluster.logs());
        Thread.sleep(100); // polling for the victim's pause marker
      }
      cluster.startTaskManager("tm-2", List.of());
      cluster.startTaskManager("tm-3", List.of()); // the spares the failed region can restart on
      cluster.awaitTaskManagers(3, 120);
      cluster.kill("tm-victim");
      try {
        build.get(5, TimeUnit.MINUTES);
      } catch (Exception e) {
        throw new AssertionError("the build did not recover: " + e + cluster.logs(), e);
      }
      long killedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

      JsonNode jobs = cluster.rest("/jobs/overview").get("jobs");
      assertEquals(1, jobs.size(), jobs.toString());
      assertEquals("FINISHED", jobs.get(0).get("state").asText());
      // Job details come from a cache of the execution graph the client's progress poll may have filled.
      cluster.awaitJobDetails(jobs.get(0).get("jid").asText(), "FINISHED", 30);
      JsonNode history = cluster.rest("/jobs/" + jobs.get(0).get("jid").asText() + "/exceptions")
          .path("exceptionHistory").path("entries");
      assertTrue(history.size() > 0, "the job recorded the lost TaskManager and restarted: " + history);

      // The undisturbed build runs on fresh TaskManagers: these are not set up for a second Kiln job (DJL
      // comes in the job jar, and its natives belong to the first job's class loader), so they refuse it
      // (docs/DEPLOYMENT.md, "Several builds on one TaskManager"; SeveralBuildsITCase).
      cluster.kill("tm-2");
      cluster.kill("tm-3");
      cluster.startTaskManager("tm-4", List.of());
      cluster.startTaskManager("tm-5", List.of());
      awaitLiveTaskManagers(cluster, 2);
      Path calmRoot = work.resolve("calm");
      long t1 = System.nanoTime();
      cluster.run(jar, "--config", config(calmRoot).toString());
      long calmMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1);

      SnapshotStore killed = new SnapshotStore(killedRoot);
      SnapshotStore calm = new SnapshotStore(calmRoot);
      Manifest a = killed.open(killed.currentId());
      Manifest b = calm.open(calm.currentId());
      assertEquals(b.counters(), a.counters());
      try (Searcher sa = Searcher.open(killedRoot); Searcher sb = Searcher.open(calmRoot)) {
        for (int s = 0; s < 3; s++) {
          TreeSet<String> ids = FlinkClusterITCase.chunkIds(killed, a, s);
          assertEquals(FlinkClusterITCase.chunkIds(calm, b, s), ids, "chunk ids of shard " + s);
          for (String id : ids) {
            assertArrayEquals(sb.chunkVector(id).orElseThrow(), sa.chunkVector(id).orElseThrow(), 0f, id);
          }
        }
        for (String q : QUERIES) {
          for (SearchMode mode : SearchMode.values()) {
            assertEquals(FlinkClusterITCase.top(sb, q, mode), FlinkClusterITCase.top(sa, q, mode),
                mode + " top 3 for '" + q + "'");
          }
        }
      }
      System.out.printf("TaskManager kill: build %.1f s, undisturbed %.1f s, ratio %.2f%n", killedMillis / 1000.0,
          calmMillis / 1000.0, (double) killedMillis / calmMillis);
    }
  }

  /** Waits until exactly {@code n} TaskManagers are registered (killed ones time out of the list). */
  private static void awaitLiveTaskManagers(FlinkTestCluster cluster, int n) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (cluster.rest("/overview").path("taskmanagers").asInt() != n
        || cluster.rest("/overview").path("slots-available").asInt() < n) {
      assertTrue(System.nanoTime() < deadline, "TaskManagers did not settle at " + n + ": " + cluster.logs());
      Thread.sleep(250); // polling the REST API for a condition
    }
  }
}
