package dev.kiln.publish;

import dev.kiln.index.KnnSearch;
import dev.kiln.index.ShardSchema;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;

/**
 * Checks a shard's HNSW graph before it is published: for held-out queries near the shard's data
 * ({@link #queries}: mixes of two sampled vectors, none of them a stored vector), compares the
 * approximate top-k (searched as the searcher searches, at its candidate depth) with an exact scan. A hit counts when its exact score reaches the
 * k-th best exact score, so duplicate vectors (ties) never count as misses. Costs
 * {@code samples × shard size} dot products in one pass over the vectors: keep samples small on large
 * shards.
 */
public final class RecallProbe {
  /** The least weight of a probe query's first vector (see {@link #queries}). */
  static final double MIX_MIN = 0.5;
  /** The most weight of a probe query's first vector: below 1, so no query is its first vector. */
  static final double MIX_MAX = 0.8;

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
    return recall(shardDir, samples, k, ef, rescore, seed, Set.of());
  }

  /**
   * As {@link #recall(Path, int, int, int, boolean, long)}, over only the segments whose names are not
   * in {@code unchanged}: an incremental build's shard probes the segments it wrote, not its base's,
   * which were probed when the base was built and have since only lost documents (Lucene's HNSW
   * search still walks a deleted node's links and only leaves it out of the results). Probing the
   * base's segments again would cost a pass over every vector of the shard for every small rebuild.
   * Deleted chunks are neither sampled nor counted by the exact scan. 1.0 when nothing is left to probe.
   */
  public static double recall(Path shardDir, int samples, int k, int ef, boolean rescore, long seed,
      Set<String> unchanged) throws IOException {
    try (FSDirectory dir = FSDirectory.open(shardDir)) {
      return recall(dir, samples, k, ef, rescore, seed, unchanged);
    }
  }

  /** As above, for a shard opened as a Lucene directory (closed by the caller). */
  public static double recall(Directory dir, int samples, int k, int ef, boolean rescore, long seed,
      Set<String> unchanged) throws IOException {
    try (DirectoryReader all = DirectoryReader.open(dir)) {
      List<IndexReader> probed = new ArrayList<>();
      for (LeafReaderContext leaf : all.leaves()) {
        if (!unchanged.contains(segmentName(leaf.reader()))) {
          probed.add(leaf.reader());
        }
      }
      try (MultiReader reader = new MultiReader(probed.toArray(new IndexReader[0]), false)) {
        return recall(reader, samples, k, ef, rescore, seed);
      }
    }
  }

  /** The names of the segments of the last commit in {@code shardDir}. */
  public static Set<String> segmentNames(Path shardDir) throws IOException {
    try (FSDirectory dir = FSDirectory.open(shardDir)) {
      return segmentNames(dir);
    }
  }

  /** The names of the segments of the last commit of a shard opened as a Lucene directory. */
  public static Set<String> segmentNames(Directory dir) throws IOException {
    Set<String> names = new HashSet<>();
    SegmentInfos.readLatestCommit(dir).forEach(info -> names.add(info.info.name));
    return names;
  }

  private static String segmentName(LeafReader leaf) {
    LeafReader unwrapped = FilterLeafReader.unwrap(leaf);
    if (!(unwrapped instanceof SegmentReader segment)) {
      throw new IllegalStateException("not a segment: " + leaf);
    }
    return segment.getSegmentName();
  }

  private static double recall(IndexReader reader, int samples, int k, int ef, boolean rescore, long seed)
      throws IOException {
    int count = 0;
    for (LeafReaderContext leaf : reader.leaves()) {
      count += liveVectors(leaf.reader());
    }
    if (count == 0 || samples <= 0) {
      return 1.0;
    }
    int n = Math.min(samples, count);
    int kk = Math.min(k, count);
    float[][] queries = queries(reader, count, n, seed);
    float[] kth = kthBestScores(reader, queries, kk);
    IndexSearcher searcher = new IndexSearcher(reader);
    int depth = KnnSearch.resolve(ef, reader);
    double sum = 0;
    for (int q = 0; q < n; q++) {
      TopDocs ann = KnnSearch.search(searcher, ShardSchema.VECTOR, queries[q], kk, depth, null, rescore);
      int hits = 0;
      for (ScoreDoc sd : ann.scoreDocs) {
        float[] v = KnnSearch.floatVector(reader, ShardSchema.VECTOR, sd.doc);
        if (v != null && VectorSimilarityFunction.DOT_PRODUCT.compare(queries[q], v) >= kth[q] - 1e-6f) {
          hits++;
        }
      }
      sum += (double) Math.min(hits, kk) / kk;
    }
    return sum / n;
  }

  /**
   * The probe's {@code n} queries over {@code reader} (holding {@code count} live vectors), seeded:
   * each {@code w·a + (1−w)·b} of two sampled live vectors, w uniform in [{@link #MIX_MIN}, {@link
   * #MIX_MAX}], at unit length. Held out, because a stored vector as its own query reports recall
   * the searcher's queries do not get: the walk converges on a node that is the query, which is its own
   * exact top 1 (a tenth of recall@10 for free) at similarity 1. A mix sits near the data, as a
   * user's query does, and is none of it (unless two stored vectors are equal); with one vector
   * (nothing to mix) that vector is the query.
   */
  static float[][] queries(IndexReader reader, int count, int n, long seed) throws IOException {
    Random random = new Random(seed);
    float[][] queries = new float[n][];
    for (int q = 0; q < n; q++) {
      int first = random.nextInt(count);
      // Another vector than the first (when there is one): a mix of a vector with itself is that vector.
      int second = count == 1 ? first : (first + 1 + random.nextInt(count - 1)) % count;
      float[] a = vectorAt(reader, first);
      float[] b = vectorAt(reader, second);
      double w = MIX_MIN + (MIX_MAX - MIX_MIN) * random.nextDouble();
      float[] mix = new float[a.length];
      double norm = 0;
      for (int j = 0; j < a.length; j++) {
        mix[j] = (float) (w * a[j] + (1 - w) * b[j]);
        norm += (double) mix[j] * mix[j];
      }
      if (norm == 0) {
        queries[q] = a; // a and -b: no direction between them
        continue;
      }
      float scale = (float) (1 / Math.sqrt(norm));
      for (int j = 0; j < mix.length; j++) {
        mix[j] *= scale;
      }
      queries[q] = mix;
    }
    return queries;
  }

  /** Live documents of {@code leaf} with a vector. */
  private static int liveVectors(LeafReader leaf) throws IOException {
    FloatVectorValues values = leaf.getFloatVectorValues(ShardSchema.VECTOR);
    if (values == null) {
      return 0;
    }
    Bits live = leaf.getLiveDocs();
    if (live == null) {
      return values.size();
    }
    int n = 0;
    KnnVectorValues.DocIndexIterator it = values.iterator();
    for (int doc = it.nextDoc(); doc != KnnVectorValues.DocIndexIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
      if (live.get(doc)) {
        n++;
      }
    }
    return n;
  }

  /**
   * The k-th best exact score of each query, in one pass over the vectors: each vector is read once
   * and scored against every query, and each query keeps only its best k scores. (One pass per query
   * read a shard of 500k 384-d vectors — 770 MB — twenty times per probe; the heap holds k floats a
   * query, not a score per vector.)
   */
  private static float[] kthBestScores(IndexReader reader, float[][] queries, int k) throws IOException {
    float[][] heaps = new float[queries.length][k]; // min-heaps of the best k scores so far
    int seen = 0;
    for (LeafReaderContext leaf : reader.leaves()) {
      FloatVectorValues values = leaf.reader().getFloatVectorValues(ShardSchema.VECTOR);
      if (values == null) {
        continue;
      }
      Bits live = leaf.reader().getLiveDocs();
      KnnVectorValues.DocIndexIterator it = values.iterator();
      for (int doc = it.nextDoc(); doc != KnnVectorValues.DocIndexIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
        if (live != null && !live.get(doc)) {
          continue;
        }
        float[] v = values.vectorValue(it.index());
        for (int q = 0; q < queries.length; q++) {
          float score = VectorSimilarityFunction.DOT_PRODUCT.compare(queries[q], v);
          if (seen < k) {
            heaps[q][seen] = score;
            if (seen == k - 1) {
              heapify(heaps[q]);
            }
          } else if (score > heaps[q][0]) {
            heaps[q][0] = score;
            siftDown(heaps[q], 0);
          }
        }
        seen++;
      }
    }
    float[] kth = new float[queries.length];
    for (int q = 0; q < queries.length; q++) {
      kth[q] = heaps[q][0];
    }
    return kth;
  }

  private static void heapify(float[] heap) {
    for (int i = heap.length / 2 - 1; i >= 0; i--) {
      siftDown(heap, i);
    }
  }

  private static void siftDown(float[] heap, int i) {
    while (true) {
      int smallest = i;
      int left = 2 * i + 1;
      int right = left + 1;
      if (left < heap.length && heap[left] < heap[smallest]) {
        smallest = left;
      }
      if (right < heap.length && heap[right] < heap[smallest]) {
        smallest = right;
      }
      if (smallest == i) {
        return;
      }
      float t = heap[i];
      heap[i] = heap[smallest];
      heap[smallest] = t;
      i = smallest;
    }
  }

  /** A copy of the {@code n}-th live vector in doc order. */
  private static float[] vectorAt(IndexReader reader, int n) throws IOException {
    int base = 0;
    for (LeafReaderContext leaf : reader.leaves()) {
      FloatVectorValues values = leaf.reader().getFloatVectorValues(ShardSchema.VECTOR);
      if (values == null) {
        continue;
      }
      Bits live = leaf.reader().getLiveDocs();
      int size = liveVectors(leaf.reader());
      if (n < base + size) {
        if (live == null) {
          return values.vectorValue(n - base).clone();
        }
        int i = base;
        KnnVectorValues.DocIndexIterator it = values.iterator();
        for (int doc = it.nextDoc(); doc != KnnVectorValues.DocIndexIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
          if (live.get(doc) && i++ == n) {
            return values.vectorValue(it.index()).clone();
          }
        }
      }
      base += size;
    }
    throw new IllegalArgumentException("no vector " + n);
  }
}
