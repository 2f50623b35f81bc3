package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.Searcher;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/**
 * Hybrid latency with the precomputed query vector handed in, on a kept scale-benchmark snapshot, and
 * a digest of every result (chunk id and score), so that two checkouts of the searcher can be compared
 * side by side in one sitting: the same latencies as {@link SearchStep}'s {@code hybrid_vector_given},
 * without its other modes, and proof that a faster searcher returns the same results. The digest is
 * taken after the timed rounds: before the JIT has compiled Lucene's vector code, the Vector API's
 * interpreted reductions add floats in another order, and a few scores differ in their last bits.
 *
 * <pre>java -cp … dev.kiln.bench.scale.HybridLatency SNAPSHOTS QUERIES.json [ROUNDS]</pre>
 *
 * QUERIES.json is the {@code queries.json} a kept run leaves beside its snapshots.
 */
public final class HybridLatency {
  private static final int K = 10;

  private HybridLatency() {}

  public static void main(String[] args) throws Exception {
    JsonNode q = new ObjectMapper().readTree(Path.of(args[1]).toFile());
    List<String> texts = QueryFile.texts(q);
    List<float[]> vectors = QueryFile.vectors(q);
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    int n = texts.size();
    // -Dkiln.bench.depths=DENSE,BM25 sets the legs' candidate depths (default: the searcher's).
    SearchOptions options = SearchOptions.defaults();
    String depths = System.getProperty("kiln.bench.depths");
    if (depths != null) {
      String[] d = depths.split(",");
      options = options.withDepths(Integer.parseInt(d[0].trim()), Integer.parseInt(d[1].trim()));
    }
    try (Searcher s = Searcher.builder().root(Path.of(args[0])).options(options).build()) {
      for (int i = 0; i < n; i++) { // warm-up round
        s.search(SearchRequest.of(texts.get(i), SearchMode.HYBRID, K), vectors.get(i));
      }
      Latencies all = new Latencies(n * rounds);
      for (int r = 0; r < rounds; r++) {
        Latencies round = new Latencies(n);
        for (int i = 0; i < n; i++) {
          SearchRequest request = SearchRequest.of(texts.get(i), SearchMode.HYBRID, K);
          long a = System.nanoTime();
          s.search(request, vectors.get(i));
          long t = System.nanoTime() - a;
          round.add(t);
          all.add(t);
        }
        System.out.printf("round %d: p50 %.2f ms, p99 %.2f ms%n", r + 1, round.percentileMs(50),
            round.percentileMs(99));
      }
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      for (int i = 0; i < n; i++) {
        for (SearchHit h : s.search(SearchRequest.of(texts.get(i), SearchMode.HYBRID, K), vectors.get(i)).results()) {
          digest.update((h.chunkId() + '\t' + h.score() + '\n').getBytes(StandardCharsets.UTF_8));
        }
      }
      System.out.printf("hybrid vector given, %d queries x %d rounds: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms; "
          + "results %s%n", n, rounds, all.percentileMs(50), all.percentileMs(90), all.percentileMs(99),
          HexFormat.of().formatHex(digest.digest()).substring(0, 16));
    }
  }
}
