package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.FlinkTestCluster;
import dev.kiln.testing.gpu.TestGpuDriverFactory;
import dev.kiln.testing.gpu.TestGpuPlugin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.flink.configuration.RestOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where embed slots go on a real TaskManager with GPUs, as Flink gives them: an external-resource driver
 * plugin in the TaskManager's plugins directory ({@link TestGpuDriverFactory}, {@code external-resources:
 * gpu}, two GPUs) that reports indexes 0 and 1, as Flink's GPU driver would, since this host has no GPU. The
 * TaskManager is set up for several builds at once (docs/DEPLOYMENT.md) and holds each embed slot right
 * after it placed itself ({@code PausePoint} "embed-placed", resumed from the test), so that two builds
 * are placed at the same time for certain. It checks that two concurrent jobs take different GPUs, that a
 * slot given a GPU on a TaskManager with CPU natives says so loudly, and that finished and cancelled jobs
 * give their GPUs back.
 */
class GpuPlacementITCase {
  private static final Pattern PLACED = Pattern.compile("embed subtask (\\d+) of job ([0-9a-f]{32}) placed on GPU (\\d+)"
      + " \\(seat (\\d+), local slot (\\d+)\\) of this TaskManager's GPUs \\[0, 1\\] \\(Flink gpu resource\\)");

  /** One placement log line of the TaskManager. */
  private record Placed(int subtask, String job, int gpu, int seat) {}

  @TempDir Path work;

  private Path config(String name, int parallelism) throws Exception {
    Path fixture = Path.of(GpuPlacementITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    Path file = work.resolve(name + ".yaml");
    Files.writeString(file, String.join("\n",
        "corpus: [" + fixture + "]", "snapshots: " + work.resolve(name), "shards: 1", "parallelism: " + parallelism,
        "chunker: {size: 48, overlap: 8}", "index: {recall-probe-samples: 5}", "ingest: {max-bad-fraction: 0.5}", ""));
    return file;
  }

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void concurrentJobsTakeDistinctGpus_cpuNativesFallBackLoudly_andEndedJobsGiveTheirGpusBack() throws Exception {
    Path cluster = work.resolve("cluster");
    try (FlinkTestCluster flink = new FlinkTestCluster(cluster, List.of(SeveralBuildsITCase.PARENT_FIRST,
        "taskmanager.numberOfTaskSlots: 4", "taskmanager.memory.process.size: 2048m",
        "taskmanager.memory.jvm-metaspace.size: 384m", "taskmanager.memory.network.min: 192m",
        "taskmanager.memory.network.max: 192m"))) {
      // A plugins directory with a test GPU driver reporting indexes 0 and 1 (this host has no GPU).
      Path plugins = TestGpuPlugin.write(work.resolve("plugins"));
      Path tmp = Files.createDirectories(work.resolve("tm-tmp"));
      flink.startTaskManager("tm", List.of("-Dkiln.test.pause-at=embed-placed", "-Dkiln.test.pause-resume=stdin",
          "-Djava.io.tmpdir=" + tmp), FlinkTestCluster.sharedNativesLib(), List.of("external-resources=gpu",
          "external-resource.gpu.amount=2",
          "external-resource.gpu.driver-factory.class=" + TestGpuDriverFactory.class.getName()),
          Map.of("FLINK_PLUGINS_DIR", plugins.toString()));
      flink.awaitTaskManagers(1, 120);
      Path log = cluster.resolve("tm.log");
      Path jar = FlinkTestCluster.jobJar();

      // Two builds of one embed slot each, both placed and held at once.
      flink.runDetached(jar, "--config", config("a", 1).toString());
      flink.runDetached(jar, "--config", config("b", 1).toString());
      List<Placed> both = awaitPlacements(flink, log, 2);
      assertNotEquals(both.get(0).job(), both.get(1).job());
      assertEquals(Set.of(0, 1), both.stream().map(Placed::gpu).collect(Collectors.toSet()),
          "two jobs on one TaskManager with two GPUs take one each: " + both);
      assertEquals(List.of(0, 0), both.stream().map(Placed::seat).toList(), both.toString());
      // Each slot logs its device choice just after its placement line, on its own task thread: the second
      // placement seen says nothing about whether that slot's next line is written yet.
      String text = awaitLog(log, "EMBEDDING ON CPU: embed.device=auto: Flink assigned GPU(s) [0, 1] to this"
          + " TaskManager but none is visible to the engine", 2);
      assertTrue(text != null, "the CPU natives' fallback is loud, in both slots:\n" + flink.logs());
      text = Files.readString(log);
      assertTrue(text.contains(TestGpuDriverFactory.REPORTED + " [0, 1]"), "the GPU driver plugin reported the GPUs");

      // The second is cancelled while it holds its GPU, the first finishes: both give their GPUs back.
      String finishing = both.get(0).job();
      String cancelled = both.get(1).job();
      cancel(flink, cancelled);
      flink.resume("tm"); // one of the two paused slots goes on...
      awaitState(flink, Map.of(finishing, "FINISHED", cancelled, "CANCELED"), 1);
      flink.resume("tm"); // ...then the other
      awaitState(flink, Map.of(finishing, "FINISHED", cancelled, "CANCELED"), 2);
      assertTrue(new SnapshotStore(work.resolve("a")).current().isPresent(), "the finished build published");

      // A build of two embed slots afterwards finds both GPUs free: nothing leaked.
      flink.runDetached(jar, "--config", config("c", 2).toString());
      List<Placed> c = awaitPlacements(flink, log, 4).subList(2, 4);
      assertEquals(c.get(0).job(), c.get(1).job());
      assertEquals(Set.of(0, 1), c.stream().map(Placed::gpu).collect(Collectors.toSet()), c.toString());
      assertEquals(List.of(0, 0), c.stream().map(Placed::seat).toList(), "no seat taken by an ended job: " + c);
      flink.resume("tm");
      awaitState(flink, Map.of(c.get(0).job(), "FINISHED"), 1);
      assertTrue(new SnapshotStore(work.resolve("c")).current().isPresent());
    }
  }

  /** Waits for {@code n} placement lines in the TaskManager's log, in order. */
  private static List<Placed> awaitPlacements(FlinkTestCluster flink, Path log, int n) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
    while (true) {
      List<Placed> placed = new ArrayList<>();
      Matcher m = PLACED.matcher(Files.exists(log) ? Files.readString(log) : "");
      while (m.find()) {
        placed.add(new Placed(Integer.parseInt(m.group(1)), m.group(2), Integer.parseInt(m.group(3)),
            Integer.parseInt(m.group(4))));
      }
      if (placed.size() >= n) {
        return placed;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(n + " placements expected, found " + placed + ": " + flink.logs());
      }
      Thread.sleep(250); // polling the log for a condition
    }
  }

  /**
   * The log once it holds {@code line} at least {@code times} times (polled for up to 60 s), else null.
   */
  private static String awaitLog(Path log, String line, int times) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      String text = Files.readString(log);
      int seen = 0;
      for (int at = text.indexOf(line); at >= 0; at = text.indexOf(line, at + line.length())) {
        seen++;
      }
      if (seen >= times) {
        return text;
      }
      if (System.nanoTime() > deadline) {
        return null;
      }
      Thread.sleep(250); // polling the log for a condition
    }
  }

  /** Waits until at least {@code count} of {@code wanted} (job id → state) hold; fails at another end state. */
  private static void awaitState(FlinkTestCluster flink, Map<String, String> wanted, int count) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      int reached = 0;
      Set<String> states = new TreeSet<>();
      for (JsonNode job : flink.rest("/jobs/overview").get("jobs")) {
        String id = job.get("jid").asText();
        String state = job.get("state").asText();
        states.add(id + "=" + state);
        if (state.equals(wanted.get(id))) {
          reached++;
        } else if (wanted.containsKey(id) && Set.of("FAILED", "FINISHED", "CANCELED").contains(state)) {
          throw new AssertionError("job " + id + " ended " + state + ", not " + wanted.get(id) + ": " + flink.logs());
        }
      }
      if (reached >= count) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(count + " of " + wanted + " expected, jobs " + states + ": " + flink.logs());
      }
      Thread.sleep(250); // polling the REST API for a condition
    }
  }

  private static void cancel(FlinkTestCluster flink, String job) throws Exception {
    int port = flink.client().get(RestOptions.PORT);
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port + "/jobs/" + job + "?mode=cancel"))
        .method("PATCH", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(202, r.statusCode(), r.body());
  }
}
