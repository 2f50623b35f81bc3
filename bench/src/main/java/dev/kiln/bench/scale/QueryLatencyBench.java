package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Latency as users feel it ({@code scripts/bench-latency.sh}, issue 47.3): single-client hybrid search
 * from query text, the query embedding included, on a kept scale-benchmark snapshot. Runs {@code pairs}
 * alternated pairs of steps, each a fresh JVM ({@link QueryLatencyStep}): A with the query cache off
 * (every request pays the model: the headline figure), B with the default cache over the same texts
 * again (the repeated-query case); A B A B … so load drifts hit both alike. A-steps also probe the
 * tokenizer and ONNX Runtime session variants. The summary gives, per measure, every step's p50/p99 and
 * their median and range (docs/results/README.md, rule 2).
 *
 * <pre>QueryLatencyBench OUT.json SNAPSHOTS QUERIES.json [PAIRS [ROUNDS [CACHE [MAX_QUERIES [PROBES]]]]]</pre>
 *
 * MAX_QUERIES (100): distinct query texts per step; PROBES (3): how many A-steps (the first) probe.
 */
public final class QueryLatencyBench {
  private static final ObjectMapper JSON = new ObjectMapper();

  private QueryLatencyBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: QueryLatencyBench OUT.json SNAPSHOTS QUERIES.json [PAIRS [ROUNDS [CACHE [MAX_QUERIES [PROBES]]]]]");
      System.exit(2);
    }
    Path out = Path.of(args[0]);
    Path snapshots = Path.of(args[1]);
    Path queries = Path.of(args[2]);
    int pairs = args.length > 3 ? Integer.parseInt(args[3]) : 5;
    int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 1;
    String cache = args.length > 5 ? args[5] : "1024";
    String maxQueries = args.length > 6 ? args[6] : "100";
    int probes = args.length > 7 ? Integer.parseInt(args[7]) : 3;
    String heap = System.getProperty("kiln.bench.heap", "4g");
    if (!Files.isRegularFile(snapshots.resolve("CURRENT")) || !Files.isRegularFile(queries) || pairs < 1
        || rounds < 1 || probes < 1) {
      System.err.println("bench-latency: needs a snapshots root with CURRENT, a queries.json, PAIRS and ROUNDS >= 1");
      System.exit(2);
    }
    Path logs = Files.createDirectories(out.toAbsolutePath().getParent().resolve(
        out.getFileName().toString().replaceFirst("\\.json$", "") + "-logs"));
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("snapshots", snapshots.toString());
    result.put("queries", queries.toString());
    result.put("commit", System.getProperty("kiln.commit", "unknown"));
    result.put("cpus", Runtime.getRuntime().availableProcessors());
    result.put("load_average", ScaleBench.loadAverage());
    result.put("steps_are", "fresh JVMs, alternated: cache off (A), cache " + cache + " (B)");
    List<JsonNode> off = new ArrayList<>();
    List<JsonNode> on = new ArrayList<>();
    for (int p = 1; p <= pairs; p++) {
      off.add(step(heap, logs, "off-" + p, snapshots, queries, "0", rounds, p <= probes, maxQueries));
      on.add(step(heap, logs, "cache-" + p, snapshots, queries, cache, rounds, false, maxQueries));
    }
    result.put("steps_cache_off", off);
    result.put("steps_cache_on", on);
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("cache_off_total", spread(off, "total"));
    summary.put("cache_off_embed", spread(off, "embed"));
    summary.put("cache_off_search_vector_given", spread(off, "search_vector_given"));
    summary.put("cache_on_total", spread(on, "total"));
    summary.put("cache_on_embed", spread(on, "embed"));
    summary.put("cold_first_query_ms", spreadOf(off, "cold_first_query_ms"));
    summary.put("cold_open_ms", spreadOf(off, "open_ms"));
    for (String v : List.of("tokenizer", "embed_default_1_thread", "embed_opt_basic", "embed_opt_none",
        "embed_intra_op_2_threads")) {
      summary.put("probe_" + v, spread(off.stream().filter(n -> n.has("probe")).map(n -> n.get("probe")).toList(), v));
    }
    result.put("summary", summary);
    result.put("load_average_end", ScaleBench.loadAverage());
    JSON.writerWithDefaultPrettyPrinter().writeValue(out.toFile(), result);
    System.out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(summary));
  }

  private static JsonNode step(String heap, Path logs, String name, Path snapshots, Path queries, String cache,
      int rounds, boolean probe, String maxQueries) throws Exception {
    System.err.printf(Locale.ROOT, "bench-latency: step %s (load %s)%n", name, ScaleBench.loadAverage());
    JsonNode n = ChildRun.run(heap, logs.resolve(name + ".log"), QueryLatencyStep.class, snapshots.toString(),
        queries.toString(), cache, Integer.toString(rounds), Boolean.toString(probe), maxQueries);
    System.err.printf(Locale.ROOT, "bench-latency: step %s: total p50 %.2f p99 %.2f ms, embed p50 %.2f ms%n", name,
        n.get("total").get("p50_ms").asDouble(), n.get("total").get("p99_ms").asDouble(),
        n.get("embed").get("p50_ms").asDouble());
    return n;
  }

  /** Per step p50 and p99 of {@code measure}, and each one's median, min and max over the steps. */
  private static Map<String, Object> spread(List<JsonNode> steps, String measure) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (String p : List.of("p50_ms", "p99_ms")) {
      List<Double> v = steps.stream().map(s -> s.get(measure).get(p).asDouble()).toList();
      m.put(p, stats(v));
    }
    return m;
  }

  private static Map<String, Object> spreadOf(List<JsonNode> steps, String field) {
    return stats(steps.stream().map(s -> s.get(field).asDouble()).toList());
  }

  private static Map<String, Object> stats(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("steps", values);
    m.put("median", n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2);
    m.put("min", sorted.get(0));
    m.put("max", sorted.get(n - 1));
    return m;
  }
}
