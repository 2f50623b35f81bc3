package dev.kiln.cli.progress;

import org.apache.logging.log4j.core.config.Configurator;

/**
 * The job's own progress lines ({@code dev.kiln.operators.StageProgress}: one per subtask and interval, meant
 * for a TaskManager's log) on the console of a local build. Where the CLI reports progress itself (bars or
 * plain lines) they would say everything twice, so they are kept off the console; with {@code --progress
 * none} they are the only progress there is, and stay.
 */
public final class JobProgressLogs {
  /** The logger the job's progress lines go to. */
  public static final String LOGGER = "dev.kiln.operators.StageProgress";

  private JobProgressLogs() {}

  /** Silences the job's progress lines in this JVM unless {@code mode} is {@link ProgressMode#NONE}. */
  public static void quietUnlessAlone(ProgressMode mode) {
    if (mode != ProgressMode.NONE) {
      // WARN, not OFF: a progress problem the job reports as a warning still shows.
      Configurator.setLevel(LOGGER, "WARN");
    }
  }
}
