package dev.kiln.index;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TimeLimitingKnnCollectorManager;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopKnnCollector;
import org.apache.lucene.search.Weight;
import org.apache.lucene.search.knn.KnnCollectorManager;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.VectorUtil;

/**
 * What searching every segment on its own ({@link PerLeafKnnQuery}, the searcher's default since the
 * shard-group router) costs against Lucene's shared cross-segment bound: recall@k against exact search
 * and HNSW nodes visited — both deterministic, so they hold on a loaded machine — and the time per
 * query, alternated A B A B A B (noisy under load; the counts are the figure).
 *
 * <pre>
 * java -cp ... dev.kiln.index.PerLeafKnnCheck SNAPSHOT_DIR QUERY_VECTORS.json [K] [EF]
 * </pre>
 *
 * {@code SNAPSHOT_DIR} holds the {@code shard-*} directories; the query vectors (the scale bench's
 * {@code query-vectors.json}, or a bare list of float lists) are real queries, not corpus vectors. EF 0: the automatic
 * depth ({@link KnnSearch#efFor}).
 */
public final class PerLeafKnnCheck {
  private PerLeafKnnCheck() {}

  public static void main(String[] args) throws Exception {
    Path snapshot = Path.of(args[0]);
    List<float[]> queries = queries(new ObjectMapper().readTree(Path.of(args[1]).toFile()));
    int k = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    int efArg = args.length > 3 ? Integer.parseInt(args[3]) : 0;
    List<IndexReader> shards = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(snapshot, "shard-*")) {
      for (Path d : dirs) {
        shards.add(DirectoryReader.open(FSDirectory.open(d)));
      }
    }
    try (MultiReader reader = new MultiReader(shards.toArray(IndexReader[]::new), true)) {
      IndexSearcher searcher = new IndexSearcher(reader);
      int ef = KnnSearch.resolve(efArg, reader);
      int n = KnnSearch.candidates(ef, k);
      List<int[]> exact = exact(reader, queries, k);
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("snapshot", snapshot.toString());
      out.put("chunks", reader.numDocs());
      out.put("segments", reader.leaves().size());
      out.put("queries", queries.size());
      out.put("k", k);
      out.put("ef", ef);
      out.put("load_average_start", Files.readString(Path.of("/proc/loadavg")).trim());
      long[][] ms = new long[2][3];
      double[] recall = new double[2];
      long[] visited = new long[2];
      for (int round = 0; round < 3; round++) {
        for (int side = 0; side < 2; side++) {
          LongAdder seen = new LongAdder();
          int hits = 0;
          long t0 = System.nanoTime();
          for (int q = 0; q < queries.size(); q++) {
            KnnFloatVectorQuery query = side == 0 ? new Shared(queries.get(q), n, seen)
                : new PerLeaf(queries.get(q), n, seen);
            TopDocs top = searcher.search(query, n);
            hits += overlap(Arrays.copyOf(top.scoreDocs, Math.min(k, top.scoreDocs.length)), exact.get(q));
            if (side == 1 && round == 0) {
              TopDocs real = KnnSearch.search(searcher, ShardSchema.VECTOR, queries.get(q), k, ef, null, false);
              if (!Arrays.equals(docs(real.scoreDocs), docs(Arrays.copyOf(top.scoreDocs, real.scoreDocs.length)))) {
                throw new IllegalStateException("the counting copy differs from PerLeafKnnQuery on query " + q);
              }
            }
          }
          ms[side][round] = (System.nanoTime() - t0) / 1_000_000;
          recall[side] = hits / (double) (queries.size() * k);
          visited[side] = seen.sum() / queries.size();
        }
      }
      out.put("shared_bound", side(recall[0], visited[0], ms[0], queries.size()));
      out.put("per_segment", side(recall[1], visited[1], ms[1], queries.size()));
      out.put("load_average_end", Files.readString(Path.of("/proc/loadavg")).trim());
      System.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(out));
    }
  }

  private static Map<String, Object> side(double recall, long visited, long[] ms, int queries) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("recall_at_k", recall);
    m.put("visited_per_query", visited);
    long[] sorted = ms.clone();
    Arrays.sort(sorted);
    m.put("ms_per_query_rounds", Arrays.stream(ms).mapToDouble(t -> t / (double) queries).toArray());
    m.put("ms_per_query_median", sorted[1] / (double) queries);
    return m;
  }

  private static int[] docs(ScoreDoc[] sd) {
    return Arrays.stream(sd).mapToInt(s -> s.doc).toArray();
  }

  private static int overlap(ScoreDoc[] got, int[] truth) {
    int n = 0;
    for (ScoreDoc s : got) {
      for (int t : truth) {
        n += s.doc == t ? 1 : 0;
      }
    }
    return n;
  }

  /** Exact top k by dot product over every stored float vector, best first. */
  private static List<int[]> exact(IndexReader reader, List<float[]> queries, int k) throws IOException {
    float[][] best = new float[queries.size()][k];
    int[][] ids = new int[queries.size()][k];
    for (float[] b : best) {
      Arrays.fill(b, Float.NEGATIVE_INFINITY);
    }
    for (LeafReaderContext leaf : reader.leaves()) {
      FloatVectorValues values = leaf.reader().getFloatVectorValues(ShardSchema.VECTOR);
      if (values == null) {
        continue;
      }
      KnnVectorValues.DocIndexIterator it = values.iterator();
      for (int doc = it.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
        float[] v = values.vectorValue(it.index());
        for (int q = 0; q < queries.size(); q++) {
          float s = VectorUtil.dotProduct(queries.get(q), v);
          if (s > best[q][k - 1]) {
            int i = k - 1;
            while (i > 0 && best[q][i - 1] < s) {
              best[q][i] = best[q][i - 1];
              ids[q][i] = ids[q][i - 1];
              i--;
            }
            best[q][i] = s;
            ids[q][i] = leaf.docBase + doc;
          }
        }
      }
    }
    return Arrays.asList(ids);
  }

  private static List<float[]> queries(JsonNode file) {
    // The bench's query-vectors.json: {"model", "queries": [{"text", "vector": [...]}...]}; or a bare list.
    JsonNode list = file.isArray() ? file : file.path("queries");
    List<float[]> out = new ArrayList<>();
    for (JsonNode item : list) {
      JsonNode v = item.isArray() ? item : item.path("vector");
      float[] f = new float[v.size()];
      for (int i = 0; i < f.length; i++) {
        f[i] = (float) v.get(i).asDouble();
      }
      out.add(f);
    }
    return out;
  }

  /** Lucene's default collection, counting the nodes each segment's walk visits. */
  private static final class Shared extends KnnFloatVectorQuery {
    private final LongAdder visited;

    Shared(float[] target, int k, LongAdder visited) {
      super(ShardSchema.VECTOR, target, k);
      this.visited = visited;
    }

    @Override
    protected TopDocs searchLeaf(LeafReaderContext ctx, Weight filterWeight,
        TimeLimitingKnnCollectorManager manager) throws IOException {
      TopDocs top = super.searchLeaf(ctx, filterWeight, manager);
      visited.add(top.totalHits.value());
      return top;
    }
  }

  /** {@link PerLeafKnnQuery}'s collection (checked equal to it above), counting visited nodes. */
  private static final class PerLeaf extends KnnFloatVectorQuery {
    private final LongAdder visited;

    PerLeaf(float[] target, int k, LongAdder visited) {
      super(ShardSchema.VECTOR, target, k);
      this.visited = visited;
    }

    @Override
    protected KnnCollectorManager getKnnCollectorManager(int k, IndexSearcher searcher) {
      return (visitedLimit, strategy, context) -> new TopKnnCollector(k, visitedLimit, strategy);
    }

    @Override
    protected TopDocs searchLeaf(LeafReaderContext ctx, Weight filterWeight,
        TimeLimitingKnnCollectorManager manager) throws IOException {
      TopDocs top = super.searchLeaf(ctx, filterWeight, manager);
      visited.add(top.totalHits.value());
      return top;
    }
  }
}
