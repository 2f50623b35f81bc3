package dev.kiln.publish;

import dev.kiln.index.KnnSearch;
import dev.kiln.index.ShardSchema;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.FSDirectory;

/**
 * Checks a shard's HNSW graph before it is published: for vectors sampled from the shard itself,
 * compares the approximate top-k (searched as the searcher searches, at its candidate depth) with an
 * exact scan. A hit counts when its exact score reaches the
 * k-th best exact score, so duplicate vectors (ties) never count as misses. Costs
 * {@code samples × shard size} dot products: keep samples small on large shards.
 */
public final class RecallProbe {
  private RecallProbe() {}

  /**
   * Mean recall@k over the sampled queries at the searcher's default candidate depth ({@link
   * KnnSearch#efFor(org.apache.lucene.index.IndexReader)}) on float32 vectors; 1.0 for an empty shard.
   */
  public static double recall(Path shardDir, int samples, int k, long seed) throws IOException {
    return recall(shardDir, samples, k, KnnSearch.AUTO_EF, false, seed);
  }

  /**
   * Mean recall@k over the sampled queries, each searched as the searcher does ({@link KnnSearch}):
   * {@code ef} candidates ({@link KnnSearch#AUTO_EF}: the searcher's default for this shard), rescored
   * with float32 vectors when {@code rescore} (quantised encodings).
   * Probing at ef = k would measure a narrower walk than any query gets: on 2,000 short, similar
   * records that read 0.85 and discarded a build whose searches reach the floor.
   */
  public static double recall(Path shardDir, int samples, int k, int ef, boolean rescore, long seed)
      throws IOException {
    try (FSDirectory dir = FSDirectory.open(shardDir); DirectoryReader reader = DirectoryReader.open(dir)) {
      // Doc ids of the vectors, in order; the vectors themselves stay in the (memory-mapped) index and
      // are streamed once per sampled query, so a probe on a shard of millions of chunks holds one
      // float per vector (its exact score) rather than every vector on the heap.
      int count = 0;
      for (LeafReaderContext leaf : reader.leaves()) {
        FloatVectorValues values = leaf.reader().getFloatVectorValues(ShardSchema.VECTOR);
        count += values == null ? 0 : values.size();
      }
      if (count == 0 || samples <= 0) {
        return 1.0;
      }
      int[] docs = new int[count];
      streamScores(reader, null, docs, null);
      IndexSearcher searcher = new IndexSearcher(reader);
      int depth = KnnSearch.resolve(ef, reader);
      Random random = new Random(seed);
      int n = Math.min(samples, count);
      float[] exact = new float[count];
      double sum = 0;
      for (int q = 0; q < n; q++) {
        float[] query = vectorAt(reader, random.nextInt(count));
        streamScores(reader, query, null, exact);
        int kk = Math.min(k, count);
        float[] sorted = exact.clone();
        Arrays.sort(sorted);
        float kth = sorted[sorted.length - kk];
        TopDocs ann = KnnSearch.search(searcher, ShardSchema.VECTOR, query, kk, depth, null, rescore);
        int hits = 0;
        for (ScoreDoc sd : ann.scoreDocs) {
          int i = Arrays.binarySearch(docs, sd.doc);
          if (i >= 0 && exact[i] >= kth - 1e-6f) {
            hits++;
          }
        }
        sum += (double) Math.min(hits, kk) / kk;
      }
      return sum / n;
    }
  }

  /** Visits every vector in doc order: records its doc id into {@code docs} and/or its score against {@code query}. */
  private static void streamScores(DirectoryReader reader, float[] query, int[] docs, float[] scores)
      throws IOException {
    int i = 0;
    for (LeafReaderContext leaf : reader.leaves()) {
      FloatVectorValues values = leaf.reader().getFloatVectorValues(ShardSchema.VECTOR);
      if (values == null) {
        continue;
      }
      KnnVectorValues.DocIndexIterator it = values.iterator();
      for (int doc = it.nextDoc(); doc != KnnVectorValues.DocIndexIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
        if (docs != null) {
          docs[i] = leaf.docBase + doc;
        }
        if (query != null) {
          scores[i] = VectorSimilarityFunction.DOT_PRODUCT.compare(query, values.vectorValue(it.index()));
        }
        i++;
      }
    }
  }

  /** A copy of the {@code n}-th vector in doc order. */
  private static float[] vectorAt(DirectoryReader reader, int n) throws IOException {
    int base = 0;
    for (LeafReaderContext leaf : reader.leaves()) {
      FloatVectorValues values = leaf.reader().getFloatVectorValues(ShardSchema.VECTOR);
      if (values == null) {
        continue;
      }
      if (n < base + values.size()) {
        return values.vectorValue(n - base).clone();
      }
      base += values.size();
    }
    throw new IllegalArgumentException("no vector " + n);
  }
}
