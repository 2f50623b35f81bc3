package dev.kiln.search.fusion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MinMaxBlendTest {
  private static List<ScoredId> ranking(Object... idScore) {
    List<ScoredId> out = new ArrayList<>();
    for (int i = 0; i < idScore.length; i += 2) {
      out.add(new ScoredId((String) idScore[i], ((Number) idScore[i + 1]).doubleValue()));
    }
    return out;
  }

  @Test
  void normalisesEachRankingAndWeighsDenseByAlpha() {
    // dense: a=0.9 → 1, b=0.7 → 0.5, c=0.5 → 0; bm25: c=20 → 1, a=10 → 0.
    List<ScoredId> dense = ranking("a", 0.9, "b", 0.7, "c", 0.5);
    List<ScoredId> bm25 = ranking("c", 20, "a", 10);
    List<ScoredId> fused = new MinMaxBlend(0.75).fuse(List.of(dense, bm25), 10);
    assertEquals(List.of("a", "b", "c"), fused.stream().map(ScoredId::id).toList());
    assertEquals(0.75, fused.get(0).score(), 1e-12);
    assertEquals(0.375, fused.get(1).score(), 1e-12);
    assertEquals(0.25, fused.get(2).score(), 1e-12);

    List<ScoredId> lexical = new MinMaxBlend(0.25).fuse(List.of(dense, bm25), 1);
    assertEquals(List.of(new ScoredId("c", 0.75)), lexical);
  }

  @Test
  void equalScoresCountAsFullyRelevantAndTiesBreakById() {
    List<ScoredId> fused = new MinMaxBlend(0.5).fuse(List.of(ranking("y", 3, "x", 3), List.of()), 5);
    assertEquals(List.of(new ScoredId("x", 0.5), new ScoredId("y", 0.5)), fused);
  }

  @Test
  void rejectsAlphaOutsideTheUnitInterval() {
    assertThrows(IllegalArgumentException.class, () -> new MinMaxBlend(1.5));
    assertThrows(IllegalArgumentException.class, () -> new MinMaxBlend(Double.NaN));
  }
}
