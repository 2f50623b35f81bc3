package dev.kiln.cli.progress;

import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Progress as plain log lines, for output that is not a terminal: every {@code interval}, one line per
 * stage that moved since the last ({@code progress: embed 1200/4800 chunks (25%), 96.0 chunks/s, ETA
 * 38s}), and at the end one line per stage with its total and average rate. The rate is over the
 * stage's whole run so far, so the ETA does not jump with each batch.
 */
final class PlainProgress implements BuildProgress {
  private final PrintStream out;
  private final long intervalMillis;
  private final Clock clock;
  /** Each stage's first count seen, and when: {@code {millis, done}}. */
  private final Map<String, long[]> first = new HashMap<>();
  private final Map<String, Long> printedDone = new HashMap<>();
  private long lastPrint;

  PlainProgress(PrintStream out, Duration interval, Clock clock) {
    this.out = out;
    this.intervalMillis = interval.toMillis();
    this.clock = clock;
    this.lastPrint = clock.millis();
  }

  @Override
  public void update(List<StageProgress> stages) {
    long now = clock.millis();
    stages.stream().filter(StageProgress::started).forEach(s -> first.putIfAbsent(s.stage(), new long[] {now, s.done()}));
    if (now - lastPrint < intervalMillis) {
      return;
    }
    lastPrint = now;
    for (StageProgress s : stages) {
      if (s.started() && printedDone.getOrDefault(s.stage(), -1L) != s.done()) {
        printedDone.put(s.stage(), s.done());
        out.println(line(s, now, false));
      }
    }
    out.flush();
  }

  @Override
  public void finish(List<StageProgress> stages) {
    long now = clock.millis();
    for (StageProgress s : stages) {
      if (s.started()) {
        first.putIfAbsent(s.stage(), new long[] {now, s.done()});
        out.println(line(s, now, true));
      }
    }
    out.flush();
  }

  String line(StageProgress s, long now, boolean finished) {
    long[] from = first.get(s.stage());
    double seconds = (now - from[0]) / 1000.0;
    long moved = s.done() - from[1];
    StringBuilder b = new StringBuilder("progress: ").append(s.stage()).append(' ');
    b.append(s.done());
    if (s.total() != StageProgress.UNKNOWN) {
      b.append('/').append(s.total());
    }
    b.append(' ').append(s.unit());
    if (s.total() > 0) {
      b.append(" (").append(s.done() * 100 / s.total()).append("%)");
    }
    if (moved > 0 && seconds > 0) {
      double rate = moved / seconds;
      b.append(String.format(Locale.ROOT, ", %.1f %s/s", rate, s.unit()));
      if (!finished && s.total() != StageProgress.UNKNOWN) {
        b.append(", ETA ").append(eta(Math.round((s.total() - s.done()) / rate)));
      }
    }
    if (finished) {
      b.append(", done");
    }
    if (!s.detail().isEmpty()) {
      b.append(" [").append(s.detail()).append(']');
    }
    return b.toString();
  }

  static String eta(long seconds) {
    return seconds >= 3600 ? String.format(Locale.ROOT, "%dh%02dm", seconds / 3600, seconds % 3600 / 60)
        : seconds >= 60 ? String.format(Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60)
        : seconds + "s";
  }
}
