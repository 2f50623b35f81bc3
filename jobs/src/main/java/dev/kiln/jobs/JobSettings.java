package dev.kiln.jobs;

import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.configuration.ExecutionOptions;

import dev.kiln.config.BuildConfig;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
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
    Configuration job = new Configuration();
    if (config.restartAttempts > 0) {
      job.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
      job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, config.restartAttempts);
      job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(config.restartDelayMs));
    } else {
      job.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    }
    job.set(ExecutionOptions.BATCH_SHUFFLE_MODE, shuffleMode(config));
    return job;
  }

  /**
   * {@code shuffle: hybrid} (Flink's hybrid shuffle, full spilling): a stage may start consuming while
   * the one before it still produces, so the shard writers start with the first routed chunk instead
   * of after every chunk was parsed, chunked and embedded; everything is still spilled, so a failed
   * region restarts from its inputs as with {@code blocking}, Flink's batch default. Measured:
   * {@code docs/results/scale.md}.
   */
  static BatchShuffleMode shuffleMode(BuildConfig config) {
    return "blocking".equals(config.shuffle) ? BatchShuffleMode.ALL_EXCHANGES_BLOCKING
        : BatchShuffleMode.ALL_EXCHANGES_HYBRID_FULL;
  }

  /**
   * Engine threads per embedding slot: {@code embed.threads} when set, else the cores divided
   * evenly among the slots of this machine, never less than one.
   */
  static int embedThreads(int configured, int cores, int parallelism) {
    return configured > 0 ? configured : Math.max(1, cores / parallelism);
  }
}
