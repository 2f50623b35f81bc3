package dev.kiln.cli.progress;

import java.io.PrintStream;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Progress as terminal bars ({@code me.tongfei:progressbar}, which measures the terminal through JLine):
 * one bar per stage, with count, rate and ETA (a stage whose total is not known yet shows count and rate).
 * The library draws one bar per line in place, so the stages take turns: when a later stage starts, the
 * bar of the one before is closed at its latest count and stays on screen above.
 */
final class TerminalProgress implements BuildProgress {
  private final PrintStream out;
  private ProgressBar bar;
  /** The stage {@link #bar} shows, by its place in the pipeline; stages before it are done. */
  private int barIndex = -1;

  TerminalProgress(PrintStream out) {
    this.out = out;
  }

  @Override
  public void update(List<StageProgress> stages) {
    int current = -1;
    for (int i = 0; i < stages.size(); i++) {
      if (stages.get(i).started()) {
        current = i;
      }
    }
    if (current > barIndex) {
      if (bar != null) {
        show(bar, stages.get(barIndex));
        bar.close();
      }
      // A stage that started and ended between two polls still gets its (closed) bar.
      for (int i = barIndex + 1; i < current; i++) {
        if (stages.get(i).started()) {
          try (ProgressBar done = open(stages.get(i))) {
            show(done, stages.get(i));
          }
        }
      }
      bar = open(stages.get(current));
      barIndex = current;
    }
    if (bar != null) {
      show(bar, stages.get(barIndex));
    }
  }

  /**
   * A bar that counts from the stage's first count seen: the library's rate and ETA are then over what
   * moved while it watched, not a first step of a whole batch over no time (see {@link PlainProgress}).
   */
  private ProgressBar open(StageProgress s) {
    return new ProgressBarBuilder().setTaskName(String.format("%-5s", s.stage()))
        .setInitialMax(s.total())
        .startsFrom(s.done(), Duration.ZERO)
        .setUnit(" " + s.unit(), 1)
        .showSpeed(new DecimalFormat("0.0", DecimalFormatSymbols.getInstance(Locale.ROOT)))
        .setSpeedUnit(ChronoUnit.SECONDS)
        .setStyle(ProgressBarStyle.ASCII)
        .setUpdateIntervalMillis(500)
        .setConsumer(new ConsoleProgressBarConsumer(out))
        .build();
  }

  private static void show(ProgressBar b, StageProgress s) {
    b.maxHint(s.total());
    b.stepTo(s.done());
    b.setExtraMessage(s.detail().isEmpty() ? "" : " " + s.detail());
  }

  @Override
  public void finish(List<StageProgress> stages) {
    update(stages);
    if (bar != null) {
      bar.close();
      bar = null;
    }
  }
}
