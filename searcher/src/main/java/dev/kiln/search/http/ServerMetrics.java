package dev.kiln.search.http;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Request counters and a latency histogram per endpoint, rendered in the Prometheus text exposition
 * format (version 0.0.4). Written by hand: three metric families do not justify a client library.
 */
public final class ServerMetrics {
  /** Upper bounds in seconds; chosen around a 1–100 ms search. */
  static final double[] BUCKETS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

  private final Map<String, Histogram> latency = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> requests = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> errors = new ConcurrentHashMap<>();

  /** Records one finished request. */
  public void record(String endpoint, int status, long nanos) {
    latency.computeIfAbsent(endpoint, e -> new Histogram()).observe(nanos / 1e9);
    requests.computeIfAbsent(endpoint + "\u0000" + status, e -> new AtomicLong()).incrementAndGet();
    if (status >= 400) {
      errors.computeIfAbsent(endpoint, e -> new AtomicLong()).incrementAndGet();
    }
  }

  /** Requests answered on {@code endpoint} with {@code status} so far. */
  public long requests(String endpoint, int status) {
    AtomicLong n = requests.get(endpoint + "\u0000" + status);
    return n == null ? 0 : n.get();
  }

  public String render(String snapshotId, long reloads) {
    StringBuilder out = new StringBuilder();
    out.append("# HELP kiln_request_duration_seconds Time to answer a request.\n");
    out.append("# TYPE kiln_request_duration_seconds histogram\n");
    latency.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> e.getValue().render(out, e.getKey()));
    out.append("# HELP kiln_requests_total Requests answered, by endpoint and HTTP status.\n");
    out.append("# TYPE kiln_requests_total counter\n");
    requests.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
      String[] parts = e.getKey().split("\u0000");
      out.append("kiln_requests_total{endpoint=\"").append(parts[0]).append("\",code=\"")
          .append(parts[1]).append("\"} ").append(e.getValue().get()).append('\n');
    });
    out.append("# HELP kiln_errors_total Requests answered with a 4xx or 5xx status.\n");
    out.append("# TYPE kiln_errors_total counter\n");
    errors.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e ->
        out.append("kiln_errors_total{endpoint=\"").append(e.getKey()).append("\"} ")
            .append(e.getValue().get()).append('\n'));
    out.append("# HELP kiln_snapshot_reloads_total Snapshots swapped in since start.\n");
    out.append("# TYPE kiln_snapshot_reloads_total counter\n");
    out.append("kiln_snapshot_reloads_total ").append(reloads).append('\n');
    out.append("# HELP kiln_snapshot_info The snapshot being served.\n");
    out.append("# TYPE kiln_snapshot_info gauge\n");
    out.append("kiln_snapshot_info{snapshot=\"").append(snapshotId).append("\"} 1\n");
    return out.toString();
  }

  private static final class Histogram {
    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS.length);
    private final AtomicLong count = new AtomicLong();
    private final AtomicLong sumNanos = new AtomicLong();

    void observe(double seconds) {
      for (int i = 0; i < BUCKETS.length; i++) {
        if (seconds <= BUCKETS[i]) {
          counts.incrementAndGet(i);
          break;
        }
      }
      count.incrementAndGet();
      sumNanos.addAndGet((long) (seconds * 1e9));
    }

    void render(StringBuilder out, String endpoint) {
      long cumulative = 0;
      for (int i = 0; i < BUCKETS.length; i++) {
        cumulative += counts.get(i);
        out.append("kiln_request_duration_seconds_bucket{endpoint=\"").append(endpoint).append("\",le=\"")
            .append(String.format(Locale.ROOT, "%s", BUCKETS[i])).append("\"} ").append(cumulative).append('\n');
      }
      out.append("kiln_request_duration_seconds_bucket{endpoint=\"").append(endpoint)
          .append("\",le=\"+Inf\"} ").append(count.get()).append('\n');
      out.append("kiln_request_duration_seconds_sum{endpoint=\"").append(endpoint).append("\"} ")
          .append(String.format(Locale.ROOT, "%.6f", sumNanos.get() / 1e9)).append('\n');
      out.append("kiln_request_duration_seconds_count{endpoint=\"").append(endpoint).append("\"} ")
          .append(count.get()).append('\n');
    }
  }
}
