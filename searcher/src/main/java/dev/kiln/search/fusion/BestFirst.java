package dev.kiln.search.fusion;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The fusions' common last step: the {@code k} best of the fused scores, best first, equal scores
 * ordered by id. Hybrid fuses a few hundred candidates to keep ten (twice a query, with lexical
 * feedback), so the best are selected with a heap of k rather than by sorting them all.
 */
final class BestFirst {
  static final Comparator<ScoredId> ORDER =
      Comparator.comparingDouble(ScoredId::score).reversed().thenComparing(ScoredId::id);

  private BestFirst() {}

  static List<ScoredId> top(Map<String, Double> scores, int k) {
    if (k >= scores.size()) {
      List<ScoredId> all = new ArrayList<>(scores.size());
      scores.forEach((id, score) -> all.add(new ScoredId(id, score)));
      all.sort(ORDER);
      return List.copyOf(all);
    }
    if (k == 0) {
      return List.of();
    }
    PriorityQueue<ScoredId> worstFirst = new PriorityQueue<>(k + 1, ORDER.reversed());
    for (Map.Entry<String, Double> e : scores.entrySet()) {
      double score = e.getValue();
      if (worstFirst.size() < k) {
        worstFirst.add(new ScoredId(e.getKey(), score));
        continue;
      }
      ScoredId worst = worstFirst.peek();
      // Most candidates fall below the k-th best: one comparison of scores turns them away.
      if (score < worst.score() || (score == worst.score() && e.getKey().compareTo(worst.id()) > 0)) {
        continue;
      }
      worstFirst.poll();
      worstFirst.add(new ScoredId(e.getKey(), score));
    }
    List<ScoredId> out = new ArrayList<>(worstFirst);
    out.sort(ORDER);
    return List.copyOf(out);
  }
}
