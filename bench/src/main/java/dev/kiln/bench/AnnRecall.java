package dev.kiln.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.jelmerk.hnswlib.core.hnsw.HnswIndex;
import dev.kiln.snapshot.LocalFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;

/**
 * Recall@10 against exact search for Kiln's ANN and hnswlib-core at ef 50 / 100 / 200, on the same
 * real vectors and queries as {@link AnnSearchBenchmark}. Not a timing: it says what the speed
 * numbers buy. Writes {@code ann-recall.json} into the report folder given as the first argument.
 */
public final class AnnRecall {
  private AnnRecall() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "target/kiln-report");
    Files.createDirectories(out);
    BenchData data = BenchData.load();
    Path dir = Files.createTempDirectory("kiln-bench-recall");
    List<Map<String, Object>> rows = new ArrayList<>();
    try {
      AnnIndexes.buildKilnShard(dir.resolve("shard"), data.vectors);
      HnswIndex<Integer, float[], AnnIndexes.VectorItem, Float> hnswlib = AnnIndexes.buildHnswlib(data.vectors);
      try (DirectoryReader reader = AnnIndexes.open(dir.resolve("shard"))) {
        IndexSearcher lucene = new IndexSearcher(reader);
        // Lucene doc ids follow insertion order in a one-segment shard, so they equal the vector index.
        int[][] exact = new int[data.queryVectors.length][];
        for (int q = 0; q < exact.length; q++) {
          exact[q] = AnnIndexes.exactTop10(data.vectors, data.queryVectors[q]);
        }
        for (int ef : new int[] {50, 100, 200}) {
          hnswlib.setEf(ef);
          double kiln = 0;
          double raw = 0;
          for (int q = 0; q < exact.length; q++) {
            kiln += overlap(exact[q], AnnIndexes.luceneTop10(lucene, data.queryVectors[q], ef));
            raw += overlap(exact[q], AnnIndexes.hnswlibTop10(hnswlib, data.queryVectors[q]));
          }
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("ef", ef);
          row.put("kiln_recall@10", kiln / exact.length);
          row.put("hnswlib_recall@10", raw / exact.length);
          rows.add(row);
          System.out.printf(Locale.ROOT, "ef %3d  recall@10  kiln (Lucene HNSW) %.4f   hnswlib-core %.4f%n",
              ef, kiln / exact.length, raw / exact.length);
        }
      }
    } finally {
      LocalFiles.deleteTree(dir);
    }
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("snapshot", data.snapshotId);
    doc.put("vectors", data.vectors.size());
    doc.put("queries", data.queryVectors.length);
    doc.put("rows", rows);
    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(out.resolve("ann-recall.json").toFile(), doc);
  }

  static double overlap(int[] exact, int[] found) {
    int hit = 0;
    for (int e : exact) {
      for (int f : found) {
        if (e == f) {
          hit++;
          break;
        }
      }
    }
    return exact.length == 0 ? 1.0 : (double) hit / exact.length;
  }
}
