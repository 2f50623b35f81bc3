package dev.kiln.index;

import java.io.IOException;
import java.util.Arrays;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
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
   * Candidates per HNSW search unless set ({@code --ef}): chosen from a measurement (README, "Dense
   * search depth"); hybrid search already asked for 100 dense candidates.
   */
  public static final int DEFAULT_EF = 100;

  private KnnSearch() {}

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
    Query query = new KnnFloatVectorQuery(field, target, n, filter);
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
}
