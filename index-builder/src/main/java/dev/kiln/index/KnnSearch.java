package dev.kiln.index;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.KnnVectorValues.DocIndexIterator;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.RescoreTopNQuery;
import org.apache.lucene.search.TopDocs;

/**
 * The one HNSW search the searcher and the build's recall probe share, so that the probe measures
 * what queries get. The graph walk collects {@code ef} candidates (at least k) and the best k of them
 * are returned: Lucene's k is both the beam and the result size, so ef = k would make a top-10 search
 * a 10-wide walk. On quantised vectors the candidates are rescored with the float32 vectors first,
 * so returned scores are full-precision similarities.
 */
public final class KnnSearch {
  /**
   * Candidates per HNSW search on segments of up to {@link #AUTO_EF_BASE_VECTORS} vectors: chosen from
   * a measurement (README, "Dense search depth"); hybrid search already asked for 100 dense candidates.
   */
  public static final int DEFAULT_EF = 100;
  /** {@code --ef} not set: {@link #efFor(long)} of the searched index's largest segment. */
  public static final int AUTO_EF = 0;
  /** Segment size up to which {@link #DEFAULT_EF} reaches recall@10 above 0.95 (measured: 0.98 at 50k). */
  public static final long AUTO_EF_BASE_VECTORS = 50_000;
  /** The most candidates an automatic depth asks for. */
  public static final int MAX_AUTO_EF = 1000;

  private KnnSearch() {}

  /**
   * The default depth for an index whose largest segment holds {@code vectors}: {@link #DEFAULT_EF}
   * up to {@link #AUTO_EF_BASE_VECTORS}, then growing with the square root of the segment size. A walk
   * of fixed width finds less of the true top 10 as the graph grows (scale benchmark, 1M chunks in two
   * 500k segments: recall@10 0.87 at 100, 0.96 at 300); this gives 316 there, and 1000 at 5M.
   */
  public static int efFor(long vectors) {
    if (vectors <= AUTO_EF_BASE_VECTORS) {
      return DEFAULT_EF;
    }
    double scaled = DEFAULT_EF * Math.sqrt(vectors / (double) AUTO_EF_BASE_VECTORS);
    return (int) Math.min(MAX_AUTO_EF, Math.round(scaled));
  }

  /** {@link #efFor(long)} of {@code reader}'s largest segment. */
  public static int efFor(IndexReader reader) {
    long largest = 0;
    for (LeafReaderContext leaf : reader.leaves()) {
      largest = Math.max(largest, leaf.reader().maxDoc());
    }
    return efFor(largest);
  }

  /** {@code ef} as asked, or {@link #efFor(IndexReader)} when it is {@link #AUTO_EF}. */
  public static int resolve(int ef, IndexReader reader) {
    return ef > 0 ? ef : efFor(reader);
  }

  /** The candidates a walk for the top {@code k} collects. */
  public static int candidates(int ef, int k) {
    return Math.max(ef, k);
  }

  /**
   * Top {@code k} of an HNSW search that collects {@code candidates(ef, k)} nearest vectors among the
   * documents matching {@code filter} (all when null).
   *
   * @param rescore whether the stored vectors are quantised: candidates are then rescored with the
   *     float32 vectors before the cut to k
   */
  public static TopDocs search(IndexSearcher searcher, String field, float[] target, int k, int ef,
      Query filter, boolean rescore) throws IOException {
    int n = candidates(ef, k);
    Query query = new PerLeafKnnQuery(field, target, n, filter);
    if (rescore) {
      query = RescoreTopNQuery.createFullPrecisionRescorerQuery(query, target, field, n);
    }
    TopDocs top = searcher.search(query, n);
    if (top.scoreDocs.length <= k) {
      return top;
    }
    // Sorted best first, ties by doc id: the first k are what a search for k would keep.
    return new TopDocs(top.totalHits, Arrays.copyOf(top.scoreDocs, k));
  }

  /**
   * A copy of the stored float32 vector of top-level doc {@code doc} in {@code field} (whatever
   * encoding the graph walks), or null when it has none: what re-scoring and the recall probe compare
   * against.
   */
  public static float[] floatVector(IndexReader reader, String field, int doc) throws IOException {
    List<LeafReaderContext> leaves = reader.leaves();
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
    FloatVectorValues values = leaf.reader().getFloatVectorValues(field);
    if (values == null) {
      return null;
    }
    DocIndexIterator it = values.iterator();
    int local = doc - leaf.docBase;
    return it.advance(local) == local ? values.vectorValue(it.index()).clone() : null;
  }
}
