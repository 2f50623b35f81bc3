package dev.kiln.search.fusion;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): an item's fused score is
 * {@code Σ 1 / (rrfK + rank)} over the rankings that contain it, with ranks starting at 1.
 *
 * <p>Only ranks matter, which is why RRF suits retrievers whose scores live on unrelated scales such
 * as cosine similarity and BM25. Equal fused scores are ordered by id so results are reproducible.
 */
public final class ReciprocalRankFusion implements Fusion {
  private final int rrfK;

  public ReciprocalRankFusion(int rrfK) {
    if (rrfK < 0) {
      throw new IllegalArgumentException("rrfK must be >= 0, was " + rrfK);
    }
    this.rrfK = rrfK;
  }

  public int rrfK() {
    return rrfK;
  }

  @Override
  public List<ScoredId> fuse(List<List<ScoredId>> rankings, int k) {
    return fuse(rankings, Collections.nCopies(rankings.size(), 1.0), k);
  }

  /** Weighted RRF: a ranking's votes count {@code weight / (rrfK + rank)}. */
  @Override
  public List<ScoredId> fuse(List<List<ScoredId>> rankings, List<Double> weights, int k) {
    Fusion.checkWeights(rankings, weights);
    List<List<String>> ids = new ArrayList<>(rankings.size());
    for (List<ScoredId> ranking : rankings) {
      ids.add(ranking.stream().map(ScoredId::id).toList());
    }
    return fuseIds(ids, weights, k);
  }

  /** {@link #fuse} for rankings that are plain id lists, best first. */
  public List<ScoredId> fuseIds(List<List<String>> rankings, int k) {
    return fuseIds(rankings, Collections.nCopies(rankings.size(), 1.0), k);
  }

  private List<ScoredId> fuseIds(List<List<String>> rankings, List<Double> weights, int k) {
    if (k < 0) {
      throw new IllegalArgumentException("k must be >= 0, was " + k);
    }
    Map<String, Double> scores = HashMap.newHashMap(rankings.stream().mapToInt(List::size).sum());
    for (int r = 0; r < rankings.size(); r++) {
      double weight = weights.get(r);
      // A retriever that repeats an id must not vote for it twice: its best rank counts.
      Set<String> seen = new HashSet<>();
      int rank = 0;
      for (String id : rankings.get(r)) {
        rank++;
        if (seen.add(id)) {
          scores.merge(id, weight / (rrfK + rank), Double::sum);
        }
      }
    }
    return BestFirst.top(scores, k);
  }
}
