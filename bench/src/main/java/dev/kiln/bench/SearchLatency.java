package dev.kiln.bench;

import dev.kiln.eval.Queries;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.Searcher;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * End-to-end query latency of {@link Searcher#search} (embedding, retrieval, fusion, hit reading) in
 * one process, and a digest of every result (chunk ids, scores, texts) so that two builds of the
 * searcher can be shown to return identical results. Uses only API that predates it, so the same
 * file measures an older checkout too.
 *
 * <pre>java -cp … dev.kiln.bench.SearchLatency SNAPSHOTS QUERIES.jsonl MODE K [ROUNDS]</pre>
 */
public final class SearchLatency {
  private SearchLatency() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    Queries queries = Queries.read(Path.of(args[1]));
    SearchMode mode = SearchMode.valueOf(args[2].toUpperCase(Locale.ROOT));
    int k = Integer.parseInt(args[3]);
    int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 3;
    List<String> texts = new ArrayList<>();
    for (String id : queries.ids()) {
      texts.add(queries.text(id));
    }
    // -Dkiln.bench.ef=N sets the query-time ef where the searcher has one (reflection: the same file
    // measures checkouts that predate it; ef 1 means max(1, k) = k, their behaviour).
    SearchOptions options = SearchOptions.defaults();
    String ef = System.getProperty("kiln.bench.ef");
    if (ef != null) {
      options = (SearchOptions) SearchOptions.class.getMethod("withEf", int.class).invoke(options, Integer.parseInt(ef));
    }
    try (Searcher searcher = Searcher.builder().root(root).options(options).build()) {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      String dump = System.getProperty("kiln.bench.dump"); // every result line, to diff two runs
      StringBuilder lines = new StringBuilder();
      for (String q : texts) { // warm-up round; its results are the digest
        for (SearchHit h : searcher.search(q, mode, k).results()) {
          String line = h.chunkId() + '\t' + h.score() + '\t' + h.text() + '\n';
          digest.update(line.getBytes(StandardCharsets.UTF_8));
          if (dump != null) {
            lines.append(q.hashCode()).append('\t').append(h.chunkId()).append('\t').append(h.score()).append('\n');
          }
        }
      }
      if (dump != null) {
        Files.writeString(Path.of(dump), lines);
      }
      long[] nanos = new long[texts.size() * rounds];
      int i = 0;
      for (int r = 0; r < rounds; r++) {
        for (String q : texts) {
          long t0 = System.nanoTime();
          searcher.search(q, mode, k);
          nanos[i++] = System.nanoTime() - t0;
        }
      }
      Arrays.sort(nanos);
      double mean = Arrays.stream(nanos).average().orElse(0) / 1000.0;
      System.out.printf(Locale.ROOT, "mode=%s k=%d queries=%d rounds=%d mean_us=%.1f p50_us=%.1f p99_us=%.1f digest=%s%n",
          mode.name().toLowerCase(Locale.ROOT), k, texts.size(), rounds, mean, nanos[nanos.length / 2] / 1000.0,
          nanos[(int) (nanos.length * 0.99)] / 1000.0, HexFormat.of().formatHex(digest.digest()).substring(0, 16));
    }
  }
}
