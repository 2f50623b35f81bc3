package dev.kiln.search.http;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntSupplier;

/**
 * Request counters and a latency histogram per endpoint, rendered in the Prometheus text exposition
 * format (version 0.0.4), and the counts of requests the server protected itself from: refused
 * with 503 (search queue full), cut off by a timeout (by phase), and searches dropped because their
 * client had gone. Written by hand: a few metric families do not justify a client library.
 */
public final class ServerMetrics {
  /** Upper bounds in seconds; chosen around a 1–100 ms search. */
  static final double[] BUCKETS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

  private final Map<String, Histogram> latency = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> requests = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> errors = new ConcurrentHashMap<>();
  private final AtomicLong rejected = new AtomicLong();
  private final AtomicLong abandoned = new AtomicLong();
  private final Map<String, AtomicLong> timeouts = new ConcurrentHashMap<>();
  private volatile IntSupplier openConnections = () -> 0;
  private final AtomicLong connectionsOpened = new AtomicLong();

  /** A search refused with 503 because every thread was busy and the queue full. */
  public void rejected() {
    rejected.incrementAndGet();
  }

  /** A search dropped before it started because its client had closed the connection. */
  public void abandoned() {
    abandoned.incrementAndGet();
  }

  /** A connection or request cut off by a timeout: {@code header} or {@code body}. */
  public void timedOut(String phase) {
    timeouts.computeIfAbsent(phase, p -> new AtomicLong()).incrementAndGet();
  }

  public long rejectedCount() {
    return rejected.get();
  }

  public long abandonedCount() {
    return abandoned.get();
  }

  public long timedOutCount(String phase) {
    AtomicLong n = timeouts.get(phase);
    return n == null ? 0 : n.get();
  }

  /** A connection accepted: a keep-alive client (a router's groups) opens few however many requests it sends. */
  void connectionOpened() {
    connectionsOpened.incrementAndGet();
  }

  public long connectionsOpenedCount() {
    return connectionsOpened.get();
  }

  /** Where the open-connections gauge reads from. */
  void openConnections(IntSupplier value) {
    this.openConnections = value;
  }

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
    out.append("# HELP kiln_requests_rejected_total Searches refused with 503: every thread busy, the queue full.\n");
    out.append("# TYPE kiln_requests_rejected_total counter\n");
    out.append("kiln_requests_rejected_total ").append(rejected.get()).append('\n');
    out.append("# HELP kiln_requests_timed_out_total Requests cut off by a timeout, by phase.\n");
    out.append("# TYPE kiln_requests_timed_out_total counter\n");
    for (String phase : new String[] {"header", "body"}) {
      out.append("kiln_requests_timed_out_total{phase=\"").append(phase).append("\"} ")
          .append(timedOutCount(phase)).append('\n');
    }
    out.append("# HELP kiln_requests_abandoned_total Searches dropped unrun because the client had gone.\n");
    out.append("# TYPE kiln_requests_abandoned_total counter\n");
    out.append("kiln_requests_abandoned_total ").append(abandoned.get()).append('\n');
    out.append("# HELP kiln_http_connections Connections open now.\n");
    out.append("# TYPE kiln_http_connections gauge\n");
    out.append("kiln_http_connections ").append(openConnections.getAsInt()).append('\n');
    out.append("# HELP kiln_http_connections_opened_total Connections accepted since start.\n");
    out.append("# TYPE kiln_http_connections_opened_total counter\n");
    out.append("kiln_http_connections_opened_total ").append(connectionsOpened.get()).append('\n');
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
