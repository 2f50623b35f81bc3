package dev.kiln.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded closed-loop HTTP load generator for a running {@code kiln serve}: for each client count
 * (default 1, 4, 16) that many threads send {@code GET /search} back to back, each waiting for its
 * answer, for a fixed time or request count, after a short warm-up; it prints p50/p90/p99 latency
 * and QPS per level as JSON. It only ever targets the loopback interface (127.0.0.1, localhost,
 * [::1]) and every run is bounded in time, requests and clients.
 *
 * <pre>
 * HttpLoad [--url http://127.0.0.1:8080] [--clients 1,4,16] [--duration-s 10 | --requests N]
 *          [--warmup-s 3] [--mode hybrid] [--k 10] [--queries FILE]
 * </pre>
 *
 * {@code --queries}: JSON lines with a {@code text} field (BEIR queries) or plain lines; default: a
 * few questions about Kiln's own docs. An API key, when the server wants one, comes from the
 * environment variable {@code KILN_API_KEY} (never the command line, where {@code ps} shows it).
 *
 * <p>Measured 2026-12-03 through {@code scripts/bench-http.sh} on the shared 2-core machine (load
 * average about 13-14), the bundled docs corpus ({@code scripts/kiln build --snapshots /tmp/hl/snapshots}:
 * 4 documents, 147 chunks) served by {@code scripts/kiln serve --snapshots /tmp/hl/snapshots --port 18080}
 * (4 search threads, queue 64), {@code --clients 1,4,16 --duration-s 10 --mode M}:
 *
 * <pre>
 * mode     clients   requests     QPS   p50 ms   p99 ms
 * hybrid         1        211      21     26.3      182
 * hybrid         4        602      60     50.7      237
 * hybrid        16        790      78    168.7      690
 * bm25           1      6,961     696     0.78     11.5
 * bm25           4     18,128   1,813     1.51     13.9
 * bm25          16     32,944   3,293     4.13     15.4
 * </pre>
 *
 * With 200 hybrid clients for 20 s ({@code --clients 200 --duration-s 20}) the server answered 777
 * searches 200 and refused 17,856 with 503 (queue full) rather than queueing them, and ten
 * {@code curl /health} calls during the run took 1-233 ms (before the queue, {@code /health} took 3-5 s
 * under 200 clients).
 */
public final class HttpLoad {
  static final Set<String> LOOPBACK = Set.of("127.0.0.1", "localhost", "[::1]", "::1");
  static final int MAX_CLIENTS = 256;
  static final int MAX_SECONDS = 600;
  static final long MAX_REQUESTS = 1_000_000;
  private static final List<String> DEFAULT_QUERIES = List.of(
      "how is a snapshot published", "embedding reuse between builds", "hybrid search fusion",
      "what does the manifest record", "chunk size and overlap", "parent child chunking",
      "rollback to an earlier snapshot", "filter by metadata tenant", "reranker model",
      "how many shards", "quarantine bad records", "kafka changelog build", "HNSW parameters",
      "BM25 k1 and b", "serve over http", "garbage collect old snapshots");

  private HttpLoad() {}

  /** One level's outcome. */
  record Level(int clients, long requests, Map<Integer, Long> statuses, long failures, double seconds,
      double[] latenciesMs) {
    double qps() {
      return requests / seconds;
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = options(args);
    URI base = URI.create(opts.getOrDefault("url", "http://127.0.0.1:8080"));
    checkLoopback(base);
    int[] clients = Arrays.stream(opts.getOrDefault("clients", "1,4,16").split(","))
        .mapToInt(s -> bounded("clients", Integer.parseInt(s.strip()), 1, MAX_CLIENTS)).toArray();
    long requests = opts.containsKey("requests")
        ? bounded("requests", Long.parseLong(opts.get("requests")), 1, MAX_REQUESTS) : 0;
    int seconds = bounded("duration-s", Integer.parseInt(opts.getOrDefault("duration-s", "10")), 1, MAX_SECONDS);
    int warmup = bounded("warmup-s", Integer.parseInt(opts.getOrDefault("warmup-s", "3")), 0, MAX_SECONDS);
    String mode = opts.getOrDefault("mode", "hybrid");
    int k = Integer.parseInt(opts.getOrDefault("k", "10"));
    List<String> queries = opts.containsKey("queries") ? readQueries(Path.of(opts.get("queries"))) : DEFAULT_QUERIES;
    List<URI> uris = queries.stream().map(q -> base.resolve("/search?mode=" + mode + "&k=" + k + "&q="
        + URLEncoder.encode(q, StandardCharsets.UTF_8))).toList();
    String apiKey = System.getenv("KILN_API_KEY");

    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(10)).build();
    if (warmup > 0) {
      run(http, uris, apiKey, Math.max(clients[0], 2), 0, warmup); // JIT, page cache, the query model
    }
    ObjectMapper json = new ObjectMapper();
    ObjectNode report = json.createObjectNode();
    report.put("url", base.toString()).put("mode", mode).put("k", k).put("queries", queries.size())
        .put("duration_s", requests > 0 ? null : seconds).put("requests_per_level", requests > 0 ? requests : null);
    ArrayNode levels = report.putArray("levels");
    for (int c : clients) {
      Level level = run(http, uris, apiKey, c, requests, seconds);
      double[] ms = level.latenciesMs();
      Arrays.sort(ms);
      ObjectNode node = levels.addObject();
      node.put("clients", c).put("requests", level.requests()).put("failures", level.failures())
          .put("seconds", round(level.seconds())).put("qps", round(level.qps()))
          .put("p50_ms", round(percentile(ms, 50))).put("p90_ms", round(percentile(ms, 90)))
          .put("p99_ms", round(percentile(ms, 99))).put("max_ms", round(ms.length == 0 ? 0 : ms[ms.length - 1]));
      ObjectNode statuses = node.putObject("status");
      level.statuses().forEach((s, n) -> statuses.put(String.valueOf(s), n));
    }
    System.out.println(json.writerWithDefaultPrettyPrinter().writeValueAsString(report));
  }

  /**
   * {@code clients} threads in a closed loop until {@code requests} have been sent (when > 0) or
   * {@code seconds} have passed; latency of every answered request, whatever its status.
   */
  static Level run(HttpClient http, List<URI> uris, String apiKey, int clients, long requests, int seconds)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    long cap = requests > 0 ? requests : MAX_REQUESTS;
    AtomicLong issued = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    AtomicInteger next = new AtomicInteger();
    Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
    List<long[]> perThread = new ArrayList<>();
    List<int[]> counts = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    long start = System.nanoTime();
    for (int t = 0; t < clients; t++) {
      long[] lat = new long[(int) Math.min(cap, 2_000_000 / clients)];
      int[] n = new int[1];
      perThread.add(lat);
      counts.add(n);
      Thread thread = new Thread(() -> {
        while (issued.incrementAndGet() <= cap && (requests > 0 || System.nanoTime() < deadline)
            && n[0] < lat.length) {
          URI uri = uris.get(Math.floorMod(next.getAndIncrement(), uris.size()));
          HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60));
          if (apiKey != null) {
            b.header("X-Api-Key", apiKey);
          }
          long t0 = System.nanoTime();
          try {
            HttpResponse<Void> r = http.send(b.build(), HttpResponse.BodyHandlers.discarding());
            lat[n[0]++] = System.nanoTime() - t0;
            statuses.computeIfAbsent(r.statusCode(), s -> new AtomicLong()).incrementAndGet();
          } catch (IOException e) {
            failures.incrementAndGet();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
      }, "http-load-" + t);
      thread.start();
      threads.add(thread);
    }
    for (Thread t : threads) {
      t.join();
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    int total = counts.stream().mapToInt(c -> c[0]).sum();
    double[] ms = new double[total];
    int i = 0;
    for (int t = 0; t < clients; t++) {
      for (int j = 0; j < counts.get(t)[0]; j++) {
        ms[i++] = perThread.get(t)[j] / 1e6;
      }
    }
    Map<Integer, Long> byStatus = new TreeMap<>();
    statuses.forEach((s, n) -> byStatus.put(s, n.get()));
    return new Level(clients, total, byStatus, failures.get(), elapsed, ms);
  }

  /** Refuses any target but this machine's loopback interface. */
  static void checkLoopback(URI url) {
    String host = url.getHost();
    if (!"http".equals(url.getScheme()) || host == null || !LOOPBACK.contains(host.toLowerCase(Locale.ROOT))
        || url.getUserInfo() != null) {
      throw new IllegalArgumentException("--url must be http://127.0.0.1:PORT, http://localhost:PORT or "
          + "http://[::1]:PORT: this load generator only targets this machine, was " + url);
    }
  }

  /** Nearest-rank percentile of sorted values. */
  static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  private static int bounded(String name, long v, long min, long max) {
    if (v < min || v > max) {
      throw new IllegalArgumentException("--" + name + " must be in " + min + ".." + max + ", was " + v);
    }
    return (int) v;
  }

  static List<String> readQueries(Path file) throws IOException {
    ObjectMapper json = new ObjectMapper();
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String s = line.strip();
      if (!s.isEmpty()) {
        out.add(s.startsWith("{") ? json.readTree(s).get("text").asText() : s);
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("--queries " + file + " holds no query");
    }
    return out;
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> out = new TreeMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("usage: HttpLoad [--url U] [--clients 1,4,16] [--duration-s S | "
            + "--requests N] [--warmup-s S] [--mode M] [--k K] [--queries FILE]; bad argument " + args[i]);
      }
      out.put(args[i].substring(2), args[++i]);
    }
    return out;
  }
}
