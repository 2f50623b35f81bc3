package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.junit.jupiter.api.Test;

/** Builds restart their failed region by default; the strategy is the build's own, set on the job. */
class RestartStrategyTest {
  @Test
  void byDefaultABuildRestartsThreeTimesWithADelay() {
    Configuration job = JobSettings.restartStrategy(BuildConfig.load(Path.of("../configs/build.yaml")).validate());
    assertEquals("fixed-delay", job.get(RestartStrategyOptions.RESTART_STRATEGY));
    assertEquals(3, job.get(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS));
    assertEquals(Duration.ofSeconds(5), job.get(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY));
  }

  @Test
  void zeroAttemptsTurnsRestartsOff() {
    BuildConfig config = new BuildConfig();
    config.restartAttempts = 0;
    assertEquals("none", JobSettings.restartStrategy(config).get(RestartStrategyOptions.RESTART_STRATEGY));
  }

  @Test
  void negativeSettingsAreRefusedNamingTheKey() {
    BuildConfig config = new BuildConfig();
    config.restartAttempts = -1;
    assertTrue(assertThrows(ConfigException.class, config::validate).getMessage().contains("restart-attempts"));
    BuildConfig delay = new BuildConfig();
    delay.restartDelayMs = -5;
    assertTrue(assertThrows(ConfigException.class, delay::validate).getMessage().contains("restart-delay-ms"));
  }
}
