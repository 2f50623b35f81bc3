package dev.kiln.jobs;

import dev.kiln.config.BuildConfig;
import dev.kiln.operators.StageProgress;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;

/** Job-level Flink settings derived from the build's config. */
final class JobSettings {
  private JobSettings() {}

  /**
   * The build's restart strategy (job-level, so it holds on a shared cluster whatever the cluster's
   * default): fixed delay with {@code restart-attempts}, or none. Failures the commit decides itself
   * (bad input, a gate, a lost compare-and-set) suppress restarts: they would fail the same way again.
   */
  static Configuration restartStrategy(BuildConfig config) {
    return jobSettings(config, false, -1);
  }

  /**
   * The restart strategy, the shuffle mode ({@link #shuffleMode}) and the stages' progress settings.
   *
   * @param embedded the job runs on a mini-cluster this process starts (its TaskManagers take the
   *     job's settings), not on a cluster whose TaskManagers were configured by someone else
   * @param corpusBytes the parse stage's progress total ({@link StageProgress#CORPUS_BYTES}), or -1
   */
  static Configuration jobSettings(BuildConfig config, boolean embedded, long corpusBytes) {
    Configuration job = new Configuration();
    if (config.restartAttempts > 0) {
      job.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
      job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, config.restartAttempts);
      job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(config.restartDelayMs));
    } else {
      job.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    }
    job.set(ExecutionOptions.BATCH_SHUFFLE_MODE, shuffleMode(config, embedded));
    // Global job parameters reach every subtask's RuntimeContext wherever it runs: how its stage's
    // progress is told its total and how often to log.
    job.set(PipelineOptions.GLOBAL_JOB_PARAMETERS, Map.of(
        StageProgress.INTERVAL, Long.toString(config.progressIntervalMs),
        StageProgress.CORPUS_BYTES, Long.toString(corpusBytes)));
    return job;
  }

  /**
   * Hybrid shuffle (full spilling): Flink lets a stage start consuming while the one before it still
   * produces; everything is still spilled, so a failed region restarts from its inputs as with
   * blocking, Flink's batch default. On Flink 2.3's default batch scheduler (adaptive) the stages of a
   * build still run one after another — measured 2026-12-04 with 2 and 8 slots: the sources finish
   * before the embed and write stages start. Only Flink's {@code Default} scheduler with a slot per
   * stage ran them side by side, and on two cores that made a full build of 100k chunks slower (67.8
   * against 59–60 s: the writers' HNSW insertion competes with parsing), so Kiln leaves the scheduler
   * alone. A TaskManager serves hybrid partitions only when
   * its own configuration asks for them (one that was not fails the task with a NullPointerException
   * in {@code ResultPartitionFactory}), so {@code shuffle: auto} uses it only on the embedded
   * mini-cluster, whose TaskManagers this process configures; {@code hybrid} asks for it anywhere (a
   * cluster started with {@code execution.batch-shuffle-mode: ALL_EXCHANGES_HYBRID_FULL}). Measured:
   * {@code docs/results/scale.md}.
   */
  static BatchShuffleMode shuffleMode(BuildConfig config, boolean embedded) {
    boolean hybrid = "hybrid".equals(config.shuffle) || ("auto".equals(config.shuffle) && embedded);
    return hybrid ? BatchShuffleMode.ALL_EXCHANGES_HYBRID_FULL : BatchShuffleMode.ALL_EXCHANGES_BLOCKING;
  }

  /**
   * Engine threads per embedding slot: {@code embed.threads} when set, else the cores divided
   * evenly among the slots of this machine, never less than one.
   */
  static int embedThreads(int configured, int cores, int parallelism) {
    return configured > 0 ? configured : Math.max(1, cores / parallelism);
  }
}
