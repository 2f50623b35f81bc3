package dev.kiln.cli;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * Milestones of a command's start, on stderr, when {@code -Dkiln.timings=true} (the launcher sets it
 * for {@code KILN_TIMINGS=1}): one line each, {@code kiln-timing {"event": "...", "ms": T, "since_start_ms":
 * S, "cpu_ms": C}}, T the phase's own time, S the time since the process started (as the OS records it,
 * to the clock tick: it includes the JVM's own start, which no in-JVM clock sees) and C the CPU time of
 * all the process's threads so far (the JIT's and GC's included): on a shared machine, C is the figure
 * another process's load does not stretch. What
 * {@code scripts/bench-cold-open.sh} reads: issue 47.4's open is "process start to searcher ready".
 */
final class StartupTimings {
  static final boolean ON = Boolean.getBoolean("kiln.timings");
  private static final Instant PROCESS_START = ON
      ? ProcessHandle.current().info().startInstant().orElse(null) : null;

  private StartupTimings() {}

  /** Milliseconds since the process started, or -1 when the OS does not say. */
  static double sinceStartMs() {
    return PROCESS_START == null ? -1 : Duration.between(PROCESS_START, Instant.now()).toNanos() / 1e6;
  }

  /** CPU milliseconds of the whole process so far, or -1 when the OS does not say. */
  static double cpuMs() {
    return ProcessHandle.current().info().totalCpuDuration().map(d -> d.toNanos() / 1e6).orElse(-1.0);
  }

  /** Prints {@code event}'s line (when on), for a phase that began at {@code startNanos} (System.nanoTime). */
  static void mark(String event, long startNanos) {
    if (ON) {
      System.err.printf(Locale.ROOT,
          "kiln-timing {\"event\": \"%s\", \"ms\": %.1f, \"since_start_ms\": %.1f, \"cpu_ms\": %.1f}%n",
          event, (System.nanoTime() - startNanos) / 1e6, sinceStartMs(), cpuMs());
    }
  }
}
