package dev.kiln.operators;

import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far one subtask of a long stage has come, for a person watching a build: units done, of the
 * total where the stage knows it, the rate since its first unit and the time left at that rate. Shown
 * as Flink gauges in the operator's group ({@link #DONE}, {@link #TOTAL}, {@link #RATE}, {@link #ETA})
 * and as an INFO line in the TaskManager's log every {@code progress-interval-ms}, plus a closing
 * line when the subtask's input ends.
 *
 * <p>The parse stage knows its total: the bytes of the corpus files the build reads, listed by the
 * client ({@link #CORPUS_BYTES}). Its splits are handed out on demand, so each subtask is given an even
 * share of it; the shares sum to the job's total, and as subtasks pull splits until none are left they
 * finish near together. The embed and write stages run after the stage before them finished (blocking
 * shuffle) but cannot see how much of it waits for them: their total and ETA are {@code -1} (unknown).
 */
public final class StageProgress {
  private static final Logger LOG = LoggerFactory.getLogger(StageProgress.class);

  /** Gauge: units this subtask has finished (bytes for parse, chunks for embed and write). */
  public static final String DONE = "progressDone";
  /** Gauge: this subtask's share of the stage's total in the same unit, or -1 when not known. */
  public static final String TOTAL = "progressTotal";
  /** Gauge: units per second since this subtask's first unit. */
  public static final String RATE = "progressPerSecond";
  /** Gauge: seconds left at that rate, or -1 when the total (or, before the first unit, the rate) is not known. */
  public static final String ETA = "progressEtaSeconds";

  /** Global job parameter: bytes of the corpus files the build reads (the parse stage's total). */
  public static final String CORPUS_BYTES = "kiln.progress.corpus-bytes";
  /** Global job parameter: milliseconds between progress lines ({@code progress-interval-ms}). */
  public static final String INTERVAL = "kiln.progress.interval-ms";
  static final long DEFAULT_INTERVAL_MS = 30_000;

  private final String stage;
  private final String unit;
  private final int subtask;
  private final int subtasks;
  private final long total;
  private final long intervalNanos;
  private final LongSupplier clock;
  private final Consumer<String> log;
  private volatile long done;
  private volatile long startNanos = -1;
  private long nextLog;

  StageProgress(String stage, String unit, int subtask, int subtasks, long total, long intervalMs,
      LongSupplier clock, Consumer<String> log) {
    this.stage = stage;
    this.unit = unit;
    this.subtask = subtask;
    this.subtasks = subtasks;
    this.total = total;
    this.intervalNanos = intervalMs * 1_000_000L;
    this.clock = clock;
    this.log = log;
  }

  /**
   * A subtask's progress, its gauges added to {@code ctx}'s operator group.
   *
   * @param jobTotal the stage's total over all subtasks, or -1 when not known
   */
  public static StageProgress register(RuntimeContext ctx, String stage, String unit, long jobTotal) {
    Map<String, String> params = ctx.getGlobalJobParameters();
    int subtasks = ctx.getTaskInfo().getNumberOfParallelSubtasks();
    long share = jobTotal < 0 ? -1 : (jobTotal + subtasks - 1) / subtasks;
    StageProgress p = new StageProgress(stage, unit, ctx.getTaskInfo().getIndexOfThisSubtask(), subtasks, share,
        longParam(params, INTERVAL, DEFAULT_INTERVAL_MS), System::nanoTime, LOG::info);
    MetricGroup g = ctx.getMetricGroup();
    g.gauge(DONE, (Gauge<Long>) () -> p.done);
    g.gauge(TOTAL, (Gauge<Long>) () -> p.total);
    g.gauge(RATE, (Gauge<Double>) () -> p.rate(p.clock.getAsLong()));
    g.gauge(ETA, (Gauge<Long>) () -> p.etaSeconds(p.clock.getAsLong()));
    return p;
  }

  /** The parse stage's total: the corpus bytes the client listed, or -1 (a changelog build, an old client). */
  public static long corpusBytes(RuntimeContext ctx) {
    return longParam(ctx.getGlobalJobParameters(), CORPUS_BYTES, -1);
  }

  private static long longParam(Map<String, String> params, String key, long fallback) {
    String v = params == null ? null : params.get(key);
    try {
      return v == null ? fallback : Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  /**
   * Starts the clock, if it has not started: a stage whose first units come out some time after its
   * input started (a batch of chunks embedded at once) calls this as input arrives.
   */
  public void begin() {
    if (startNanos < 0) {
      long now = clock.getAsLong();
      startNanos = now;
      nextLog = now + intervalNanos;
    }
  }

  /** Counts {@code n} more units done (starting the clock), and logs a line when the interval has passed since the last one. */
  public void advance(long n) {
    begin();
    long now = clock.getAsLong();
    done += n;
    if (now - nextLog >= 0) {
      nextLog = now + intervalNanos;
      log.accept(line(now));
    }
  }

  /** Logs the closing line: what this subtask did, in how long. */
  public void finish() {
    long now = clock.getAsLong();
    double seconds = startNanos < 0 ? 0 : (now - startNanos) / 1e9;
    log.accept(String.format(Locale.ROOT, "progress %s %d/%d: finished, %d %s in %.1f s (%s %s/s)", stage,
        subtask + 1, subtasks, done, unit, seconds, decimal(rate(now)), unit));
  }

  long done() {
    return done;
  }

  long total() {
    return total;
  }

  /** Units per second since the first unit; 0 before it. */
  double rate(long now) {
    long elapsed = now - startNanos;
    return startNanos < 0 || elapsed <= 0 ? 0 : done * 1e9 / elapsed;
  }

  /** Seconds left at the current rate; -1 when the total or the rate is not known. */
  long etaSeconds(long now) {
    if (total < 0) {
      return -1;
    }
    if (done >= total) {
      return 0;
    }
    double r = rate(now);
    return r <= 0 ? -1 : (long) Math.ceil((total - done) / r);
  }

  /** The progress line, e.g. {@code progress parse 1/2: 52428800 of 104857600 bytes (50.0 %), 1048576 bytes/s, ETA 50s}. */
  String line(long now) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "progress %s %d/%d: %d", stage, subtask + 1,
        subtasks, done));
    if (total >= 0) {
      b.append(String.format(Locale.ROOT, " of %d %s (%.1f %%)", total, unit,
          total == 0 ? 100.0 : Math.min(100.0, 100.0 * done / total)));
    } else {
      b.append(' ').append(unit).append(" (total not known)");
    }
    b.append(", ").append(decimal(rate(now))).append(' ').append(unit).append("/s");
    long eta = etaSeconds(now);
    b.append(", ETA ").append(eta < 0 ? "unknown" : duration(eta));
    return b.toString();
  }

  private static String decimal(double v) {
    return v >= 100 ? String.valueOf(Math.round(v)) : String.format(Locale.ROOT, "%.1f", v);
  }

  /** {@code 45s}, {@code 3m05s}, {@code 2h07m}. */
  static String duration(long seconds) {
    if (seconds < 60) {
      return seconds + "s";
    }
    if (seconds < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60);
    }
    return String.format(Locale.ROOT, "%dh%02dm", seconds / 3600, (seconds % 3600) / 60);
  }
}
