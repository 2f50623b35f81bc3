package dev.kiln.bench.scale;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** Latencies of one mode, in nanoseconds as measured, reported in milliseconds. */
final class Latencies {
  private final long[] nanos;
  private int n;

  Latencies(int capacity) {
    nanos = new long[capacity];
  }

  void add(long ns) {
    nanos[n++] = ns;
  }

  double percentileMs(double p) {
    long[] s = Arrays.copyOf(nanos, n);
    Arrays.sort(s);
    int at = (int) Math.ceil(p / 100.0 * n) - 1;
    return s[Math.max(0, Math.min(n - 1, at))] / 1e6;
  }

  Map<String, Object> report() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("queries", n);
    m.put("p50_ms", percentileMs(50));
    m.put("p90_ms", percentileMs(90));
    m.put("p99_ms", percentileMs(99));
    m.put("mean_ms", Arrays.stream(nanos, 0, n).average().orElse(0) / 1e6);
    return m;
  }
}
