package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kiln.config.BuildConfig;
import java.nio.file.Path;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.configuration.ExecutionOptions;
import org.junit.jupiter.api.Test;

/**
 * Hybrid shuffle where Kiln configures the TaskManagers itself, blocking on a cluster unless asked:
 * a session cluster's TaskManagers not started for hybrid shuffle fail its tasks at deploy
 * ({@code FlinkClusterITCase} caught that).
 */
class ShuffleModeTest {
  @Test
  void theDefaultIsHybridOnTheEmbeddedMiniClusterAndBlockingOnACluster() {
    BuildConfig config = BuildConfig.load(Path.of("../configs/build.yaml")).validate();
    assertEquals("auto", config.shuffle);
    assertEquals(BatchShuffleMode.ALL_EXCHANGES_HYBRID_FULL,
        JobSettings.jobSettings(config, true, -1).get(ExecutionOptions.BATCH_SHUFFLE_MODE));
    assertEquals(BatchShuffleMode.ALL_EXCHANGES_BLOCKING,
        JobSettings.jobSettings(config, false, -1).get(ExecutionOptions.BATCH_SHUFFLE_MODE));
  }

  @Test
  void anExplicitModeHoldsEverywhere() {
    BuildConfig config = new BuildConfig();
    config.shuffle = "blocking";
    assertEquals(BatchShuffleMode.ALL_EXCHANGES_BLOCKING, JobSettings.shuffleMode(config, true));
    config.shuffle = "hybrid";
    assertEquals(BatchShuffleMode.ALL_EXCHANGES_HYBRID_FULL, JobSettings.shuffleMode(config, false));
  }
}
