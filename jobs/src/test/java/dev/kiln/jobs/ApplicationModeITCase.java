package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.FlinkTestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Application mode for real: the JobManager is Flink's {@code StandaloneApplicationClusterEntryPoint}
 * (what the official image's {@code standalone-job} runs, and what the Kubernetes operator's
 * application deployments amount to), given the job jar and {@code BuildJob}'s arguments; one
 * TaskManager joins it. {@code main()} runs in the JobManager, the job publishes by itself, and the
 * cluster shuts down when it ends: the entry point's exit status is the build's outcome — 0 once the
 * snapshot is published, non-zero when a gate of the commit refused it (too much bad input here).
 */
class ApplicationModeITCase {
  @TempDir Path work;

  /** The JobManager's exit status and, for failure messages, the cluster's logs. */
  private record Ended(int status, String logs) {}

  private Ended runApplication(String name, Path corpus, double maxBad, Path root) throws Exception {
    Path config = Files.writeString(work.resolve(name + ".yaml"), String.join("\n",
        "corpus: [" + corpus + "]", "snapshots: " + root, "shards: 1", "parallelism: 1",
        "chunker: {size: 48, overlap: 8}", "index: {recall-probe-samples: 5}",
        "ingest: {max-bad-fraction: " + maxBad + "}", ""));
    Path dir = work.resolve(name);
    try (FlinkTestCluster cluster = FlinkTestCluster.application(dir, List.of(), FlinkTestCluster.jobJar(),
        BuildJob.class.getName(), List.of("--config", config.toString()))) {
      cluster.startTaskManager("tm", List.of());
      int status = cluster.awaitExit("jobmanager", 240);
      // The JobManager's lines that say why, then every log's tail.
      List<String> why;
      try (Stream<String> lines = Files.lines(dir.resolve("jobmanager.log"))) {
        why = lines.filter(l -> l.contains("Exception") || l.contains("kiln") || l.contains("Application"))
            .limit(60).toList();
      }
      return new Ended(status, "\n" + String.join("\n", why) + cluster.logs());
    }
  }

  private Path corpus(boolean broken) throws Exception {
    Path fixture = Path.of(ApplicationModeITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    List<String> lines = new ArrayList<>(Files.readAllLines(fixture).subList(0, 4));
    if (broken) {
      lines.add("{\"_id\": \"broken\", \"text\": ");
    }
    Path file = work.resolve(broken ? "broken.jsonl" : "corpus.jsonl");
    Files.write(file, lines);
    return file;
  }

  @Test
  void aBuildThatPublishesEndsTheApplicationWithExitStatusZero() throws Exception {
    Path root = work.resolve("published");
    Ended ended = runApplication("ok", corpus(false), 0.5, root);
    SnapshotStore store = new SnapshotStore(root);
    assertEquals(0, ended.status(), () -> "exit status of the application cluster" + ended.logs());
    assertTrue(store.current().isPresent(), "the job published from inside the application cluster");
    assertTrue(store.verify(store.manifest(store.currentId())).isEmpty());
  }

  @Test
  void aBuildRefusedByAGateFailsTheApplication() throws Exception {
    Path root = work.resolve("refused");
    Ended ended = runApplication("gate", corpus(true), 0.0, root);
    assertNotEquals(0, ended.status(), () -> "a refused build is a failed application" + ended.logs());
    assertTrue(ended.logs().contains("too much bad input"), ended.logs());
    assertFalse(new SnapshotStore(root).current().isPresent(), "nothing published");
  }
}
