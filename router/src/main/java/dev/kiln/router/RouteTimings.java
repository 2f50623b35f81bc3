package dev.kiln.router;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where one routed search spent its time, answered as a {@code Server-Timing} header and logged at
 * debug level: each phase's wall time at the router ({@code stats}, {@code legs}, {@code fetch}),
 * its own work between them ({@code merge}; with hybrid's feedback passes also {@code join}, the first
 * pass joined, and {@code feedback}, their phases), and for every group call the HTTP round trip
 * ({@code g0-stats}) beside the group's own handling of it as the group reports it
 * ({@code g0-stats-group}, from its {@code Server-Timing}), so that the hop's cost — round trip minus
 * handling — is read off one answer. Thread-safe: the groups' calls of one phase record side by side.
 */
final class RouteTimings {
  private final long start = System.nanoTime();
  private final List<String> entries = new ArrayList<>();

  /** Records {@code name} as having run from {@code startNanos} until now. */
  void since(String name, long startNanos) {
    add(name, System.nanoTime() - startNanos);
  }

  /**
   * One group call that answered: its round trip at the router and, when the group said, its own
   * handling time ({@code group;dur=} of the group's {@code Server-Timing}).
   */
  void call(int group, String phase, long roundTripNanos, String groupTiming) {
    String name = "g" + group + "-" + phase;
    add(name, roundTripNanos);
    double handled = groupDuration(groupTiming);
    if (handled >= 0) {
      synchronized (entries) {
        entries.add(name + "-group;dur=" + format(handled));
      }
    }
  }

  private void add(String name, long nanos) {
    synchronized (entries) {
      entries.add(name + ";dur=" + format(nanos / 1e6));
    }
  }

  /** The {@code Server-Timing} value: every entry so far, then {@code total} since this was made. */
  String header() {
    synchronized (entries) {
      List<String> all = new ArrayList<>(entries);
      all.add("total;dur=" + format((System.nanoTime() - start) / 1e6));
      return String.join(", ", all);
    }
  }

  @Override
  public String toString() {
    return header();
  }

  /** The {@code dur} of the {@code group} metric in a {@code Server-Timing} value, or -1. */
  static double groupDuration(String serverTiming) {
    if (serverTiming == null) {
      return -1;
    }
    for (String metric : serverTiming.split(",")) {
      String[] parts = metric.strip().split(";");
      if (!parts[0].strip().equals("group")) {
        continue;
      }
      for (int i = 1; i < parts.length; i++) {
        String p = parts[i].strip();
        if (p.startsWith("dur=")) {
          try {
            return Double.parseDouble(p.substring(4));
          } catch (NumberFormatException e) {
            return -1;
          }
        }
      }
    }
    return -1;
  }

  private static String format(double ms) {
    return String.format(Locale.ROOT, "%.2f", ms);
  }
}
