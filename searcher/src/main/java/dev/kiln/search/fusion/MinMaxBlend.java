package dev.kiln.search.fusion;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Convex combination of min-max normalised scores: each ranking's scores are mapped onto [0, 1]
 * (its best candidate 1, its worst 0) and an item's fused score is {@code Σ w_i · norm_i}, where an
 * item missing from a ranking contributes 0 there. With two rankings the weights are {@code alpha}
 * for the first (dense, by Kiln's convention) and {@code 1 - alpha} for the second (BM25); any number
 * of rankings can be fused with a weight each (federated roots, more recall paths).
 *
 * <p>Unlike RRF this keeps how far apart candidates are, which helps when one retriever is
 * confident; it is sensitive to the candidate depth, since the worst candidate anchors 0.
 */
public final class MinMaxBlend implements Fusion {
  private final double alpha;

  public MinMaxBlend(double alpha) {
    if (!(alpha >= 0 && alpha <= 1)) {
      throw new IllegalArgumentException("alpha must be in [0, 1], was " + alpha);
    }
    this.alpha = alpha;
  }

  public double alpha() {
    return alpha;
  }

  /**
   * Two rankings (dense, BM25) get {@code alpha} and {@code 1 - alpha}; one gets 1; more get equal
   * weights (use {@link #fuse(List, List, int)} to weigh them).
   */
  @Override
  public List<ScoredId> fuse(List<List<ScoredId>> rankings, int k) {
    List<Double> weights = new ArrayList<>(rankings.size());
    for (int r = 0; r < rankings.size(); r++) {
      weights.add(rankings.size() == 1 ? 1.0 : rankings.size() == 2 ? (r == 0 ? alpha : 1 - alpha)
          : 1.0 / rankings.size());
    }
    return fuse(rankings, weights, k);
  }

  @Override
  public List<ScoredId> fuse(List<List<ScoredId>> rankings, List<Double> weights, int k) {
    if (k < 0) {
      throw new IllegalArgumentException("k must be >= 0, was " + k);
    }
    Fusion.checkWeights(rankings, weights);
    Map<String, Double> scores = HashMap.newHashMap(rankings.stream().mapToInt(List::size).sum());
    for (int r = 0; r < rankings.size(); r++) {
      double weight = weights.get(r);
      List<ScoredId> ranking = rankings.get(r);
      if (ranking.isEmpty()) {
        continue;
      }
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      for (ScoredId s : ranking) {
        min = Math.min(min, s.score());
        max = Math.max(max, s.score());
      }
      double range = max - min;
      Map<String, Double> best = HashMap.newHashMap(ranking.size());
      for (ScoredId s : ranking) {
        // All-equal scores carry no preference: every candidate counts as fully relevant.
        double norm = range > 0 ? (s.score() - min) / range : 1.0;
        best.merge(s.id(), norm, Math::max);
      }
      best.forEach((id, norm) -> scores.merge(id, weight * norm, Double::sum));
    }
    return BestFirst.top(scores, k);
  }
}
