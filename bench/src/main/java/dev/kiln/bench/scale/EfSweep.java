package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * Dense recall@10 and latency against the search depth ({@code ef}) on a scale run's snapshot, with
 * the run's queries and exact top 10 ({@code queries.json}): what the default ef is chosen from.
 * Arguments: snapshots root, queries JSON, comma-separated ef values. Prints one JSON object.
 */
public final class EfSweep {
  private static final int K = 10;

  private EfSweep() {}

  public static void main(String[] args) throws Exception {
    JsonNode q = new ObjectMapper().readTree(Path.of(args[1]).toFile());
    List<float[]> vectors = QueryFile.vectors(q);
    List<Set<String>> truth = new ArrayList<>();
    q.get("truth").forEach(t -> {
      Set<String> s = new HashSet<>();
      t.forEach(id -> s.add(id.asText()));
      truth.add(s);
    });
    Map<String, Object> out = new LinkedHashMap<>();
    for (String e : args[2].split(",")) {
      int ef = Integer.parseInt(e.strip());
      try (Searcher s = Searcher.builder().root(Path.of(args[0])).options(SearchOptions.defaults().withEf(ef)).build()) {
        for (int i = 0; i < Math.min(100, vectors.size()); i++) {
          s.dense(vectors.get(i), K); // warm-up
        }
        Latencies lat = new Latencies(truth.size());
        double recall = 0;
        for (int i = 0; i < truth.size(); i++) {
          long t0 = System.nanoTime();
          List<SearchHit> hits = s.dense(vectors.get(i), K);
          lat.add(System.nanoTime() - t0);
          int found = 0;
          for (SearchHit h : hits) {
            found += truth.get(i).contains(h.docId()) ? 1 : 0;
          }
          recall += found / (double) K;
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("recall_at_10", recall / truth.size());
        row.putAll(lat.report());
        out.put("ef_" + ef, row);
        System.err.printf("ef %4d: recall@10 %.4f, %s%n", ef, recall / truth.size(), lat.report());
      }
    }
    System.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(out));
  }
}
