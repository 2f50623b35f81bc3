package dev.kiln.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns the raw results of a benchmark run (JMH's JSON, the ANN recall file, the end-to-end build
 * file) into the table of Kiln-vs-raw ratios printed by {@code scripts/bench.sh} and the report in
 * {@code target/kiln-report/index.html} with PNG charts.
 */
public final class BenchReport {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One Kiln-vs-raw pair of the same work. */
  record Pair(String benchmark, String params, String kilnName, double kilnScore, String rawName,
      double rawScore, String unit) {
    /** Speed of Kiln relative to the raw library: above 1 = Kiln faster. */
    double speedRatio() {
      boolean throughput = unit.endsWith("/s");
      return throughput ? kilnScore / rawScore : rawScore / kilnScore;
    }
  }

  private BenchReport() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args.length > 0 ? args[0] : "target/kiln-report");
    List<Pair> pairs = Files.isRegularFile(dir.resolve("jmh.json")) ? pairs(JSON.readTree(dir.resolve("jmh.json").toFile()))
        : List.of();
    JsonNode recall = read(dir.resolve("ann-recall.json"));
    JsonNode e2e = read(dir.resolve("e2e.json"));
    JsonNode regress = read(dir.resolve("regress.json"));

    StringBuilder md = new StringBuilder();
    if (!pairs.isEmpty()) {
      md.append("| benchmark | params | Kiln | raw library | unit | Kiln speed / raw |\n|---|---|---:|---:|---|---:|\n");
      for (Pair p : pairs) {
        md.append(String.format(Locale.ROOT, "| %s | %s | %.3f | %.3f | %s | **%.2f×** |%n", p.benchmark(), p.params(),
            p.kilnScore(), p.rawScore(), p.unit(), p.speedRatio()));
      }
      ReportCharts.ratios(pairs, dir.resolve("ratios.png"));
    }
    if (recall != null) {
      md.append("\nANN recall@10 vs exact search (").append(recall.get("vectors")).append(" vectors, ")
          .append(recall.get("queries")).append(" queries)\n\n| ef | Kiln (Lucene HNSW) | hnswlib-core |\n|---:|---:|---:|\n");
      for (JsonNode r : recall.get("rows")) {
        md.append(String.format(Locale.ROOT, "| %d | %.4f | %.4f |%n", r.get("ef").asInt(),
            r.get("kiln_recall@10").asDouble(), r.get("hnswlib_recall@10").asDouble()));
      }
      ReportCharts.recall(recall, dir.resolve("recall.png"));
    }
    if (e2e != null) {
      md.append("\nEnd-to-end build (").append(e2e.get("corpus").asText()).append(")\n\n")
          .append("| size | parallelism | chunks | wall s | wall / (1×, same p) | embed busy s | write busy s |\n|---|---:|---:|---:|---:|---:|---:|\n");
      Map<Integer, Double> base = new TreeMap<>();
      for (JsonNode r : e2e.get("rows")) {
        if (r.get("size").asInt() == 1) {
          base.put(r.get("parallelism").asInt(), r.get("wall_s").asDouble());
        }
      }
      for (JsonNode r : e2e.get("rows")) {
        double b = base.getOrDefault(r.get("parallelism").asInt(), Double.NaN);
        md.append(String.format(Locale.ROOT, "| %d× | %d | %d | %.1f | %.2f | %.1f | %.1f |%n", r.get("size").asInt(),
            r.get("parallelism").asInt(), r.get("chunks").asLong(), r.get("wall_s").asDouble(),
            r.get("wall_s").asDouble() / b, r.get("embed_busy_s").asDouble(), r.get("write_busy_s").asDouble()));
      }
      ReportCharts.e2e(e2e, dir.resolve("e2e.png"));
    }
    if (regress != null) {
      md.append("\nQuality regressions\n\n| dataset | mode | metric | expected | actual | tol | status |\n|---|---|---|---:|---:|---:|---|\n");
      for (JsonNode r : regress) {
        double exp = r.get("expected").asDouble();
        double act = r.get("actual").asDouble();
        double tol = r.get("tolerance").asDouble();
        md.append(String.format(Locale.ROOT, "| %s | %s | %s | %.4f | %.4f | %.4f | %s |%n", r.get("dataset").asText(),
            r.get("mode").asText(), r.get("metric").asText(), exp, act, tol,
            Math.abs(act - exp) > tol + 1e-12 ? "DRIFT" : "ok"));
      }
    }
    Files.writeString(dir.resolve("report.md"), md.toString());
    Files.writeString(dir.resolve("index.html"), ReportCharts.html(md.toString(), dir));
    System.out.println(md);
    System.out.println("report: " + dir.resolve("index.html").toAbsolutePath());
  }

  private static JsonNode read(Path p) throws IOException {
    return Files.isRegularFile(p) ? JSON.readTree(p.toFile()) : null;
  }

  static List<Pair> pairs(JsonNode jmh) {
    Map<String, Map<String, JsonNode>> groups = new LinkedHashMap<>();
    for (JsonNode r : jmh) {
      String full = r.get("benchmark").asText();
      int dot = full.lastIndexOf('.');
      String cls = full.substring(full.lastIndexOf('.', dot - 1) + 1, dot);
      String params = params(r.get("params"));
      groups.computeIfAbsent(cls + "|" + params, k -> new LinkedHashMap<>()).put(full.substring(dot + 1), r);
    }
    List<Pair> out = new ArrayList<>();
    for (Map.Entry<String, Map<String, JsonNode>> g : groups.entrySet()) {
      JsonNode kiln = null;
      JsonNode raw = null;
      String kilnName = null;
      String rawName = null;
      for (Map.Entry<String, JsonNode> m : g.getValue().entrySet()) {
        if (m.getKey().startsWith("kiln")) {
          kiln = m.getValue();
          kilnName = m.getKey();
        } else if (m.getKey().startsWith("raw")) {
          raw = m.getValue();
          rawName = m.getKey();
        }
      }
      if (kiln != null && raw != null) {
        String[] key = g.getKey().split("\\|", 2);
        out.add(new Pair(key[0], key[1], kilnName, kiln.get("primaryMetric").get("score").asDouble(), rawName,
            raw.get("primaryMetric").get("score").asDouble(), kiln.get("primaryMetric").get("scoreUnit").asText()));
      }
    }
    return out;
  }

  private static String params(JsonNode params) {
    if (params == null) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    for (Iterator<Map.Entry<String, JsonNode>> it = params.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      sb.append(sb.isEmpty() ? "" : ",").append(e.getKey()).append('=').append(e.getValue().asText());
    }
    return sb.toString();
  }
}
