package dev.kiln.search.fusion;

import java.util.List;

/**
 * Combines several rankings of the same kind of items (for example the dense and the BM25 result
 * of one query) into one. Implementations must be stateless and thread-safe, and must break ties
 * deterministically so that the same inputs always give the same order.
 */
public interface Fusion {

  /**
   * Fuses rankings into one.
   *
   * @param rankings each list ordered best first; an id may be missing from some lists
   * @param k the most items to return
   * @return at most {@code k} distinct ids with their fused scores, best first
   */
  List<ScoredId> fuse(List<List<ScoredId>> rankings, int k);

  /**
   * Fuses rankings, each with its own weight (a path trusted more counts more).
   *
   * @param weights one non-negative, finite weight per ranking
   */
  List<ScoredId> fuse(List<List<ScoredId>> rankings, List<Double> weights, int k);

  /** Weights must be one per ranking, finite and non-negative. */
  static void checkWeights(List<List<ScoredId>> rankings, List<Double> weights) {
    if (weights.size() != rankings.size()) {
      throw new IllegalArgumentException(weights.size() + " weights for " + rankings.size() + " rankings");
    }
    for (double w : weights) {
      if (!(w >= 0) || Double.isInfinite(w)) {
        throw new IllegalArgumentException("weights must be finite and >= 0, got " + weights);
      }
    }
  }
}
