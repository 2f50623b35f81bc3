package dev.kiln.cli.progress;

/**
 * How far one build stage has got, as the job's counters say at one moment.
 *
 * @param stage the stage's name ({@code read}, {@code embed}, {@code write})
 * @param unit what {@code done} counts ({@code records}, {@code chunks})
 * @param done units the stage has finished
 * @param total units the stage will finish, or {@link #UNKNOWN} while it cannot be known (the corpus's
 *     records before they are read); a total may still grow while an earlier stage produces input
 * @param detail further counts for the reader ({@code 120 documents, 480 chunks}), or empty
 */
public record StageProgress(String stage, String unit, long done, long total, String detail) {
  public static final long UNKNOWN = -1;

  public StageProgress {
    if (total != UNKNOWN && done > total) {
      // A counter of the stage's output can pass its input's (a chunk re-embedded after a restart): the
      // stage is not more than done.
      total = done;
    }
    detail = detail == null ? "" : detail;
  }

  /** Whether the stage has begun: a stage with nothing done is not shown yet. */
  public boolean started() {
    return done > 0;
  }
}
