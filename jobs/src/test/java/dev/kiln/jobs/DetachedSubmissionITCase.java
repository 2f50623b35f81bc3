package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.DetachedJobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A detached submission (what {@code flink run -d} gives the job's main: a real submission and a
 * {@link DetachedJobExecutionResult}) builds the snapshot on the cluster but does not publish it: the client says so and fails, and leaves the snapshot it cannot
 * finish marked STAGING instead of deleting it from under the running job.
 */
class DetachedSubmissionITCase {
  @TempDir Path work;

  @Test
  void detachedSubmissionBuildsButDoesNotPublishAndKeepsTheSnapshotStaging() throws Exception {
    Path corpus = work.resolve("corpus.jsonl");
    Files.write(corpus, List.of(
        StageMetricsITCase.line("tides", "Tides", "The moon's pull raises two bulges of sea water."),
        StageMetricsITCase.line("kelp", "Kelp forests", "Giant kelp grows half a metre a day in cold water.")));
    Path root = work.resolve("snapshots");
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(corpus.toString());
    config.snapshots = root.toString();
    config.shards = 2;
    config.parallelism = 2;
    // Flink's local executor refuses execution.attached=false, so DetachedEnvironment does what the
    // cluster client's environment does under -d: submit, and return a DetachedJobExecutionResult.
    Configuration detached = new Configuration();
    detached.set(DeploymentOptions.TARGET, "local");
    detached.set(DeploymentOptions.ATTACHED, true); // the local executor's precondition; execute() below returns at once
    detached.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
    detached.set(JobManagerOptions.ADDRESS, "127.0.0.1");
    detached.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
    detached.set(TaskManagerOptions.HOST, "127.0.0.1");
    detached.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    detached.set(RestOptions.ADDRESS, "127.0.0.1");
    detached.set(TaskManagerOptions.NUM_TASK_SLOTS, 2);
    StreamExecutionEnvironment env = new DetachedEnvironment(detached);
    env.setParallelism(2);

    DetachedSubmission e = assertThrows(DetachedSubmission.class, () -> new SnapshotBuilder(config,
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
        .build(env));
    assertTrue(e.getMessage().contains("without -d"), e.getMessage());

    Path snapshots = root.resolve(SnapshotLayout.SNAPSHOTS_DIR);
    List<Path> built;
    try (Stream<Path> s = Files.list(snapshots)) {
      built = s.filter(Files::isDirectory).toList();
    }
    assertEquals(1, built.size(), built.toString());
    Path snapshot = built.get(0);
    assertTrue(e.getMessage().contains(snapshot.getFileName().toString()), e.getMessage());

    // The job goes on without the client: both shards get committed (bounded wait, generous on a loaded machine).
    long deadline = System.nanoTime() + 300_000_000_000L;
    while (!(committed(snapshot.resolve(SnapshotLayout.shardDirName(0)))
        && committed(snapshot.resolve(SnapshotLayout.shardDirName(1))))) {
      assertTrue(System.nanoTime() < deadline, "the detached job never committed its shards in " + snapshot);
      Thread.sleep(200); // polling a condition, not waiting for something to happen
    }
    assertTrue(Files.exists(snapshot.resolve(SnapshotLayout.STAGING)), "unpublished: still marked STAGING");
    assertFalse(Files.exists(snapshot.resolve(SnapshotLayout.MANIFEST)), "nothing wrote a manifest");
    assertFalse(Files.exists(root.resolve(SnapshotLayout.CURRENT)), "nothing was published");
  }

  /** Submits the job for real and returns at once, with the result a detached submission gives main(). */
  static final class DetachedEnvironment extends StreamExecutionEnvironment {
    DetachedEnvironment(Configuration conf) {
      super(conf);
    }

    @Override
    public JobExecutionResult execute(String jobName) throws Exception {
      JobClient client = executeAsync(jobName);
      return new DetachedJobExecutionResult(client.getJobID());
    }
  }

  private static boolean committed(Path shard) throws IOException {
    if (!Files.isDirectory(shard)) {
      return false;
    }
    try (Stream<Path> s = Files.list(shard)) {
      return s.anyMatch(p -> p.getFileName().toString().startsWith("segments_"));
    }
  }
}
