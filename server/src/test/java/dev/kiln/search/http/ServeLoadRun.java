package dev.kiln.search.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.search.Searcher;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A short, bounded load run against a running {@code kiln serve}: the same queries as hybrid and as
 * BM25 over HTTP, then as bare in-process Lucene BM25 ({@link Searcher#bm25}: one BooleanQuery of
 * TermQuerys plus stored fields, no HTTP, no JSON), and prints p50/p99 of each and the ratios.
 *
 * <pre>java -cp … dev.kiln.search.http.ServeLoadRun PORT SNAPSHOTS_ROOT QUERIES.jsonl [N] [CONCURRENCY]</pre>
 */
public final class ServeLoadRun {
  private ServeLoadRun() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    Path root = Path.of(args[1]);
    int n = args.length > 3 ? Integer.parseInt(args[3]) : 200;
    int concurrency = args.length > 4 ? Integer.parseInt(args[4]) : 2;
    ObjectMapper json = new ObjectMapper();
    List<String> queries = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of(args[2]))) {
      if (!line.isBlank()) {
        queries.add(json.readTree(line).get("text").asText());
      }
    }
    HttpClient http = HttpClient.newHttpClient();
    // Warm-up: JIT, page cache, the query embedder's first load.
    run(http, port, queries, "hybrid", Math.min(50, n), concurrency);
    run(http, port, queries, "bm25", Math.min(50, n), concurrency);
    double[] hybrid = run(http, port, queries, "hybrid", n, concurrency);
    double[] bm25Http = run(http, port, queries, "bm25", n, concurrency);
    double[] bare;
    try (Searcher searcher = Searcher.open(root)) {
      for (int i = 0; i < 50; i++) {
        searcher.bm25(queries.get(i % queries.size()), 10);
      }
      bare = new double[n];
      for (int i = 0; i < n; i++) {
        long t = System.nanoTime();
        searcher.bm25(queries.get(i % queries.size()), 10);
        bare[i] = (System.nanoTime() - t) / 1e6;
      }
    }
    report("hybrid via HTTP", hybrid);
    report("bm25 via HTTP", bm25Http);
    report("bare Lucene BM25 (in-process)", bare);
    System.out.printf(Locale.ROOT, "ratio hybrid/bare-bm25: p50 %.1fx, p99 %.1fx; hybrid/bm25-http: p50 %.1fx, p99 %.1fx%n",
        pct(hybrid, 50) / pct(bare, 50), pct(hybrid, 99) / pct(bare, 99),
        pct(hybrid, 50) / pct(bm25Http, 50), pct(hybrid, 99) / pct(bm25Http, 99));
  }

  private static double[] run(HttpClient http, int port, List<String> queries, String mode, int n,
      int concurrency) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(concurrency);
    try {
      List<Future<Double>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String q = queries.get(i % queries.size());
        futures.add(pool.submit(() -> {
          HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
              + "/search?k=10&mode=" + mode + "&q=" + URLEncoder.encode(q, StandardCharsets.UTF_8))).build();
          long t = System.nanoTime();
          HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
          double ms = (System.nanoTime() - t) / 1e6;
          if (r.statusCode() != 200) {
            throw new IllegalStateException(r.statusCode() + " " + r.body());
          }
          return ms;
        }));
      }
      double[] out = new double[n];
      for (int i = 0; i < n; i++) {
        out[i] = futures.get(i).get();
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  private static double pct(double[] values, int p) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int idx = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
  }

  private static void report(String name, double[] ms) {
    System.out.printf(Locale.ROOT, "%-32s n=%d  p50 %7.2f ms  p99 %7.2f ms%n", name, ms.length,
        pct(ms, 50), pct(ms, 99));
  }
}
