package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.FlinkTestCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several Kiln builds on the same TaskManager JVM, nothing restarted between, on a real JobManager and
 * TaskManager (separate JVMs on 127.0.0.1, the job jar submitted as {@code flink run} does; see
 * {@link FlinkClusterITCase}). A TaskManager set up as docs/DEPLOYMENT.md says ("Several builds on one
 * TaskManager": {@code target/flink-lib/} in its {@code lib/}, DJL and ONNX Runtime parent-first) runs two
 * builds in a row and then two at once, each embedding with the bundled model and publishing the same
 * snapshot, and keeps no finished job's classes. A TaskManager without the setup runs one build and
 * fails the next at its first task, saying what to set up.
 */
class SeveralBuildsITCase {
  /** The line of a TaskManager's config.yaml that the setup adds (its other half is lib/). */
  static final String PARENT_FIRST = "classloader.parent-first-patterns.additional: [\"ai.djl.\", \"ai.onnxruntime.\"]";
  private static final String[] QUERIES = {"sourdough starter lactobacilli", "stratovolcanoes viscous magma"};

  @TempDir Path work;

  private Path config(Path root) throws Exception {
    Path fixture = Path.of(SeveralBuildsITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    Path file = work.resolve(root.getFileName() + ".yaml");
    Files.writeString(file, String.join("\n",
        "corpus: [" + fixture + "]", "snapshots: " + root, "shards: 3", "parallelism: 2",
        "chunker: {size: 48, overlap: 8}", "index: {recall-probe-samples: 5}", "ingest: {max-bad-fraction: 0.5}",
        ""));
    return file;
  }

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void aTaskManagerSetUpForIt_runsBuildsInARowAndAtOnce_andKeepsNoFinishedJobsClasses() throws Exception {
    // One TaskManager with four slots, so that two builds of parallelism 2 run on it at once; room in
    // metaspace for two jobs' classes.
    try (FlinkTestCluster cluster = new FlinkTestCluster(work.resolve("cluster"), List.of(PARENT_FIRST,
        "taskmanager.numberOfTaskSlots: 4", "taskmanager.memory.process.size: 2048m",
        "taskmanager.memory.jvm-metaspace.size: 384m", "taskmanager.memory.network.min: 192m",
        "taskmanager.memory.network.max: 192m"))) {
      cluster.startTaskManager("tm", List.of(), FlinkTestCluster.sharedNativesLib(), List.of());
      cluster.awaitTaskManagers(1, 120);
      String taskManager = taskManagerIds(cluster).get(0);
      Path jar = FlinkTestCluster.jobJar();

      List<Path> roots = new ArrayList<>();
      long t0 = System.nanoTime();
      for (String name : List.of("first", "second")) {
        Path root = work.resolve(name);
        roots.add(root);
        run(cluster, jar, root);
      }
      long inARow = System.nanoTime() - t0;

      Path third = work.resolve("third");
      Path fourth = work.resolve("fourth");
      roots.add(third);
      roots.add(fourth);
      long t1 = System.nanoTime();
      CompletableFuture<Void> a = CompletableFuture.runAsync(() -> runUnchecked(cluster, jar, third));
      CompletableFuture<Void> b = CompletableFuture.runAsync(() -> runUnchecked(cluster, jar, fourth));
      CompletableFuture.allOf(a, b).get(4, TimeUnit.MINUTES);
      long atOnce = System.nanoTime() - t1;

      assertEquals(List.of(taskManager), taskManagerIds(cluster), "the same TaskManager ran every build");
      JsonNode jobs = cluster.rest("/jobs/overview").get("jobs");
      assertEquals(4, jobs.size(), jobs.toString());
      List<long[]> spans = new ArrayList<>();
      for (JsonNode job : jobs) {
        assertEquals("FINISHED", job.get("state").asText(), job.toString());
        spans.add(new long[] {job.get("start-time").asLong(), job.get("end-time").asLong()});
      }
      spans.sort((x, y) -> Long.compare(x[0], y[0]));
      assertTrue(spans.get(0)[1] <= spans.get(1)[0], "the first two ran one after the other: " + jobs);
      assertTrue(spans.get(2)[0] < spans.get(3)[1] && spans.get(3)[0] < spans.get(2)[1],
          "the last two ran at the same time: " + jobs);

      assertSamePublishedSnapshots(roots);
      String log = Files.readString(work.resolve("cluster").resolve("tm.log"));
      assertTrue(log.contains("their native libraries are shared by every job"), "the tasks saw the setup");
      assertFalse(log.contains("UnsatisfiedLinkError"), "no native library was loaded twice");
      // Four jobs came and went. A static or a thread of the TaskManager's class path that held a job's objects
      // (DJL's engine registry filled from a job's class loader, say: DjlEnvironmentTest) would keep that
      // job's classes, and each later job's, for the TaskManager's life. The JVM itself may keep one
      // finished job's class loader a while longer (a heap dump showed a method handle cache holding a
      // Jackson annotation proxy of the last jobs); more than one is a leak.
      long loaders = jobClassLoadersLeft(cluster.pid("tm"), 1, 60);
      if (loaders > 1) {
        jcmd(cluster.pid("tm"), "GC.heap_dump " + Path.of("target", "several-builds-tm.hprof").toAbsolutePath());
        fail(loaders + " class loaders of finished jobs alive in the TaskManager (heap dump:"
            + " target/several-builds-tm.hprof):\n" + jcmd(cluster.pid("tm"), "VM.classloader_stats")
            + jcmd(cluster.pid("tm"), "Thread.print"));
      }
      System.out.printf("on one TaskManager: two builds in a row %.1f s, two at once %.1f s%n", inARow / 1e9,
          atOnce / 1e9);
    }
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aTaskManagerWithoutTheSetup_runsOneBuild_andFailsTheNextAtItsFirstTaskSayingWhatToDo() throws Exception {
    try (FlinkTestCluster cluster = new FlinkTestCluster(work.resolve("cluster"), List.of())) {
      cluster.startTaskManager("tm", List.of());
      cluster.awaitTaskManagers(1, 120);
      Path jar = FlinkTestCluster.jobJar();
      Path first = work.resolve("first");
      run(cluster, jar, first);
      assertTrue(new SnapshotStore(first).current().isPresent(), "the first build published");
      String log = Files.readString(work.resolve("cluster").resolve("tm.log"));
      assertTrue(log.contains("the next Kiln job on this TaskManager will fail"), "the first build warned");

      Path second = work.resolve("second");
      long t0 = System.nanoTime();
      // The client (BuildJob's main) prints the job's failure and exits 1, as 'flink run' would.
      Exception e = assertThrows(Exception.class, () -> cluster.run(jar, "--config", config(second).toString()));
      long failedAfter = System.nanoTime() - t0;
      assertTrue(chain(e).contains("kiln build failed with exit code 1"), chain(e));
      assertTrue(new SnapshotStore(second).current().isEmpty(), "nothing published");

      JsonNode jobs = cluster.rest("/jobs/overview").get("jobs");
      String failed = null;
      for (JsonNode job : jobs) {
        if ("FAILED".equals(job.get("state").asText())) {
          failed = job.get("jid").asText();
        }
      }
      assertTrue(failed != null, jobs.toString());
      // The REST handlers of one job's details share a cache of its execution graph (web.refresh-interval,
      // 3 s); the client's progress poll (accumulators) may have filled it while the job was still failing.
      // Read the details once the cached graph itself says FAILED.
      cluster.awaitJobDetails(failed, "FAILED", 30);
      JsonNode history = cluster.rest("/jobs/" + failed + "/exceptions").path("exceptionHistory").path("entries");
      assertEquals(1, history.size(), "failed once, not restarted: " + history);
      String failure = history.get(0).path("stacktrace").asText();
      for (String expected : List.of("This TaskManager cannot run Kiln job", "jobs/target/flink-lib/",
          "classloader.parent-first-patterns.additional", "Several builds on one TaskManager")) {
        assertTrue(failure.contains(expected), "'" + expected + "' in: " + failure);
      }
      assertFalse(failure.contains("java.lang.UnsatisfiedLinkError"), failure);
      // Refused where the first task (read, parse, chunk: chained) opens the chunk stage, before a native loads.
      assertTrue(failure.contains("NativeLibraries.check") && failure.contains("ChunkFunction.open"), failure);
      List<String> ran = new ArrayList<>();
      for (JsonNode v : cluster.rest("/jobs/" + failed).get("vertices")) {
        String status = v.get("status").asText();
        // (The job's STAGING heartbeat, a source without records, ends at once on its own.)
        if (!"CREATED".equals(status) && !"CANCELED".equals(status) && !v.get("name").asText().contains("staging-heartbeat")) {
          ran.add(v.get("name").asText() + ": " + status);
        }
      }
      assertEquals(List.of("Source: read-corpus -> parse -> chunk: FAILED"), ran, "only the first task ran");
      System.out.printf("the refused build failed after %.1f s (submission included)%n", failedAfter / 1e9);
    }
  }

  private void run(FlinkTestCluster cluster, Path jar, Path root) throws Exception {
    try {
      cluster.run(jar, "--config", config(root).toString());
    } catch (Exception e) {
      throw new AssertionError("the build into " + root.getFileName() + " failed: " + e + cluster.logs(), e);
    }
  }

  private void runUnchecked(FlinkTestCluster cluster, Path jar, Path root) {
    try {
      run(cluster, jar, root);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> taskManagerIds(FlinkTestCluster cluster) throws Exception {
    List<String> ids = new ArrayList<>();
    for (JsonNode tm : cluster.rest("/taskmanagers").get("taskmanagers")) {
      ids.add(tm.get("id").asText());
    }
    return ids;
  }

  /** Every root published a snapshot with the same counts, chunks, vectors and answers as the first. */
  private static void assertSamePublishedSnapshots(List<Path> roots) throws Exception {
    SnapshotStore reference = new SnapshotStore(roots.get(0));
    Manifest ref = reference.open(reference.currentId());
    try (Searcher sr = Searcher.open(roots.get(0))) {
      for (Path root : roots.subList(1, roots.size())) {
        SnapshotStore store = new SnapshotStore(root);
        Manifest m = store.open(store.currentId());
        assertEquals(ref.counters(), m.counters(), root.toString());
        try (Searcher s = Searcher.open(root)) {
          for (int shard = 0; shard < ref.shards().size(); shard++) {
            TreeSet<String> ids = FlinkClusterITCase.chunkIds(store, m, shard);
            assertEquals(FlinkClusterITCase.chunkIds(reference, ref, shard), ids, root + " shard " + shard);
            for (String id : ids) {
              assertArrayEquals(sr.chunkVector(id).orElseThrow(), s.chunkVector(id).orElseThrow(), 0f, id);
            }
          }
          for (String q : QUERIES) {
            assertEquals(FlinkClusterITCase.top(sr, q, SearchMode.DENSE), FlinkClusterITCase.top(s, q, SearchMode.DENSE),
                root + ": " + q);
          }
        }
      }
    }
  }

  /**
   * Live job class loaders (Flink's {@code ChildFirstClassLoader}) in the JVM {@code pid}, counted by
   * {@code jcmd GC.class_histogram} (a full collection first) until at most {@code expected} are left or
   * the deadline passes: Flink lets go of a finished job's class loader asynchronously.
   */
  private static long jobClassLoadersLeft(long pid, int expected, int timeoutSeconds) throws Exception {
    Pattern row = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+\\d+\\s+org\\.apache\\.flink\\.util\\.ChildFirstClassLoader\\b",
        Pattern.MULTILINE);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (true) {
      Matcher m = row.matcher(jcmd(pid, "GC.class_histogram"));
      long live = m.find() ? Long.parseLong(m.group(1)) : 0;
      if (live <= expected || System.nanoTime() > deadline) {
        return live;
      }
      Thread.sleep(2000); // polling the histogram for a condition
    }
  }

  private static String jcmd(long pid, String command) throws Exception {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }

  private static String chain(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = e; c != null; c = c.getCause()) {
      b.append(c).append('\n');
    }
    return b.toString();
  }
}
