package dev.kiln.cli.progress;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The job's progress lines reach the console only when the CLI prints no progress of its own. */
class JobProgressLogsTest {
  /** The logger the operators write their progress lines to, as they look it up. */
  private final Logger jobProgress = LoggerFactory.getLogger(JobProgressLogs.LOGGER);

  @AfterEach
  void restore() {
    Configurator.setLevel(JobProgressLogs.LOGGER, "INFO");
  }

  @Test
  void plainLinesOrBarsSilenceTheJobsProgressLines_noneKeepsThem() {
    Configurator.setLevel(JobProgressLogs.LOGGER, "INFO");
    JobProgressLogs.quietUnlessAlone(ProgressMode.NONE);
    assertTrue(jobProgress.isInfoEnabled(), "--progress none: the job's lines are the only progress");
    JobProgressLogs.quietUnlessAlone(ProgressMode.PLAIN);
    assertFalse(jobProgress.isInfoEnabled(), "plain: the CLI's own lines, once");
    assertTrue(jobProgress.isWarnEnabled(), "a warning still shows");
    Configurator.setLevel(JobProgressLogs.LOGGER, "INFO");
    JobProgressLogs.quietUnlessAlone(ProgressMode.BAR);
    assertFalse(jobProgress.isInfoEnabled(), "bars: the same");
  }
}
