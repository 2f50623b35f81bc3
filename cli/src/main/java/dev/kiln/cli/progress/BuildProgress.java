package dev.kiln.cli.progress;

import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Where a running build reports how far each stage has got. The build backend calls {@link #update}
 * from one thread, as often as it polls the job (about once a second), and {@link #finish} once, with the
 * final counts, when the job has ended (whether it succeeded or not).
 */
public interface BuildProgress {
  /** The stages' latest counts, in pipeline order. */
  void update(List<StageProgress> stages);

  /** The job has ended; {@code stages} are its final counts. Releases the terminal. */
  void finish(List<StageProgress> stages);

  /** Reports nothing. */
  static BuildProgress none() {
    return new BuildProgress() {
      @Override
      public void update(List<StageProgress> stages) {}

      @Override
      public void finish(List<StageProgress> stages) {}
    };
  }

  /**
   * The reporter for {@code mode}: terminal bars ({@link TerminalProgress}) or plain lines every {@code
   * interval} ({@link PlainProgress}), written to {@code out}.
   */
  static BuildProgress open(ProgressMode mode, PrintStream out, Duration interval) {
    return switch (mode) {
      case BAR -> new TerminalProgress(out);
      case PLAIN -> new PlainProgress(out, interval, Clock.systemUTC());
      case NONE -> none();
    };
  }
}
