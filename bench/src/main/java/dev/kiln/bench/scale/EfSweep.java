package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.index.KnnSearch;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.Searcher;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Dense recall@10 and latency against the search depth ({@code ef}) on a scale run's snapshot, on two
 * disjoint query sets of the run ({@link QuerySplit}): the depth is chosen on the calibration set
 * ({@code calibration-queries.json}: the least ef whose recall reaches the target) and its recall
 * reported on the held-out report set ({@code queries.json}), beside the automatic depth's recall on
 * both (issue 47.6). Arguments: snapshots root, calibration queries JSON, report queries JSON,
 * comma-separated ef values, optionally the target recall@10 (default 0.95). Prints one JSON object.
 */
public final class EfSweep {
  private static final int K = 10;
  private static final double DEFAULT_TARGET = 0.95;

  private EfSweep() {}

  /** One query set: its vectors and exact top 10 ids. */
  record QuerySet(List<float[]> vectors, List<Set<String>> truth) {
    static QuerySet read(Path file) throws Exception {
      JsonNode q = new ObjectMapper().readTree(file.toFile());
      List<Set<String>> truth = new ArrayList<>();
      q.get("truth").forEach(t -> {
        Set<String> s = new HashSet<>();
        t.forEach(id -> s.add(id.asText()));
        truth.add(s);
      });
      return new QuerySet(QueryFile.vectors(q), truth);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: EfSweep SNAPSHOTS CALIBRATION_QUERIES.json REPORT_QUERIES.json EF[,EF...] [TARGET]");
      System.exit(2);
    }
    QuerySet calibration = QuerySet.read(Path.of(args[1]));
    QuerySet report = QuerySet.read(Path.of(args[2]));
    double target = args.length > 4 ? Double.parseDouble(args[4]) : DEFAULT_TARGET;
    Map<Integer, Double> calibrationRecall = new LinkedHashMap<>();
    Map<Integer, Double> reportRecall = new LinkedHashMap<>();
    Map<String, Object> rows = new LinkedHashMap<>();
    List<Integer> depths = new ArrayList<>();
    depths.add(KnnSearch.AUTO_EF);
    for (String e : args[3].split(",")) {
      depths.add(Integer.parseInt(e.strip()));
    }
    for (int ef : depths) {
      try (Searcher s = Searcher.builder().root(Path.of(args[0])).options(SearchOptions.defaults().withEf(ef)).build()) {
        for (int i = 0; i < Math.min(100, calibration.vectors().size()); i++) {
          s.dense(calibration.vectors().get(i), K); // warm-up
        }
        Map<String, Object> row = new LinkedHashMap<>();
        double cal = recall(s, calibration, null);
        Latencies lat = new Latencies(report.truth().size());
        double rep = recall(s, report, lat);
        row.put("calibration_recall_at_10", cal);
        row.put("report_recall_at_10", rep);
        row.putAll(lat.report());
        String name = ef == KnnSearch.AUTO_EF ? "ef_auto" : "ef_" + ef;
        rows.put(name, row);
        if (ef != KnnSearch.AUTO_EF) {
          calibrationRecall.put(ef, cal);
          reportRecall.put(ef, rep);
        }
        System.err.printf("%s: recall@10 calibration %.4f, report (held out) %.4f, %s%n", name, cal, rep, lat.report());
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("target_recall_at_10", target);
    out.put("calibration_queries", args[1]);
    out.put("report_queries", args[2]);
    Integer chosen = chosen(calibrationRecall, target);
    out.put("chosen_ef", chosen);
    out.put("chosen_ef_report_recall_at_10", chosen == null ? null : reportRecall.get(chosen));
    out.put("sweep", rows);
    System.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(out));
  }

  /**
   * The least ef whose calibration recall reaches {@code target}, or null when none does. Reads only
   * calibration recalls: a choice that saw the report set's would not be held out from it.
   */
  static Integer chosen(Map<Integer, Double> calibrationRecall, double target) {
    return calibrationRecall.entrySet().stream().filter(e -> e.getValue() >= target).map(Map.Entry::getKey)
        .min(Integer::compare).orElse(null);
  }

  /** Mean recall@10 of {@code set}'s queries, timing each into {@code lat} when given. */
  private static double recall(Searcher s, QuerySet set, Latencies lat) {
    double recall = 0;
    for (int i = 0; i < set.truth().size(); i++) {
      long t0 = System.nanoTime();
      List<SearchHit> hits = s.dense(set.vectors().get(i), K);
      if (lat != null) {
        lat.add(System.nanoTime() - t0);
      }
      int found = 0;
      for (SearchHit h : hits) {
        found += set.truth().get(i).contains(h.docId()) ? 1 : 0;
      }
      recall += found / (double) K;
    }
    return recall / set.truth().size();
  }
}
