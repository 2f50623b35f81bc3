package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
 * {@link DetachedJobExecutionResult}) returns at once, and the job verifies and publishes the snapshot by
 * itself, with no client attached.
 */
class DetachedSubmissionITCase {
  @TempDir Path work;

  @Test
  void detachedSubmissionPublishesWithNoClientAttached() throws Exception {
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

    ByteArrayOutputStream log = new ByteArrayOutputStream();
    SnapshotBuilder.BuildReport report = new SnapshotBuilder(config, new PrintStream(log, true, StandardCharsets.UTF_8))
        .build(env);
    assertFalse(report.published(), "the client returns before the job has published anything");
    String said = log.toString(StandardCharsets.UTF_8);
    assertTrue(said.contains("submitted detached") && said.contains(report.snapshotId()), said);

    // The job goes on without the client and publishes by itself (bounded wait, generous on a loaded machine).
    SnapshotStore store = new SnapshotStore(root);
    long deadline = System.nanoTime() + 300_000_000_000L;
    while (!store.current().map(report.snapshotId()::equals).orElse(false)) {
      assertTrue(System.nanoTime() < deadline, "the detached job never published " + report.snapshotId());
      Thread.sleep(200); // polling a condition, not waiting for something to happen
    }
    Path snapshot = root.resolve(SnapshotLayout.SNAPSHOTS_DIR).resolve(report.snapshotId());
    assertFalse(Files.exists(snapshot.resolve(SnapshotLayout.STAGING)), "committed: no longer STAGING");
    assertTrue(store.verify(store.manifest(report.snapshotId())).isEmpty(), "every file matches the manifest");
    assertEquals("build", store.verifiedRecord(report.snapshotId()).orElseThrow().by(),
        "verified by the job's own commit from the writers' checksums");
    try (Searcher searcher = Searcher.open(root)) {
      assertEquals("kelp", searcher.search("giant kelp growth", SearchMode.BM25, 1).results().get(0).docId());
    }
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
}
