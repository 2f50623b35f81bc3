package dev.kiln.search.fusion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Fusion of any number of rankings with a weight each (federated roots, further recall paths). */
class WeightedFusionTest {
  private static List<ScoredId> ranking(String... idsBestFirst) {
    List<ScoredId> out = new ArrayList<>();
    for (int i = 0; i < idsBestFirst.length; i++) {
      out.add(new ScoredId(idsBestFirst[i], idsBestFirst.length - i));
    }
    return out;
  }

  @Test
  void blendOfTwoRankingsWithoutWeightsIsTheAlphaBlend() {
    List<List<ScoredId>> two = List.of(ranking("a", "b", "c"), ranking("c", "b", "a"));
    MinMaxBlend blend = new MinMaxBlend(0.7);
    assertEquals(blend.fuse(two, List.of(0.7, 1 - 0.7), 3), blend.fuse(two, 3));
    assertEquals("a", blend.fuse(two, 3).get(0).id(), "alpha 0.7 favours the first ranking");
  }

  @Test
  void blendOfThreeRankingsWeighsEachAndZeroSilencesOne() {
    List<List<ScoredId>> three = List.of(ranking("a", "b"), ranking("b", "a"), ranking("c", "a"));
    MinMaxBlend blend = new MinMaxBlend(0.5);
    // Equal weights: a is first or second everywhere it appears.
    assertEquals("a", blend.fuse(three, 3).get(0).id());
    assertEquals(List.of("c", "a", "b"),
        blend.fuse(three, List.of(0.0, 0.0, 1.0), 3).stream().map(ScoredId::id).toList(),
        "only the third ranking counts; ties (0) by id");
    double top = blend.fuse(three, List.of(2.0, 1.0, 1.0), 1).get(0).score();
    assertEquals(2.0 * 1 + 1.0 * 0 + 1.0 * 0, top, 1e-12, "a: 1 in the first (weight 2), 0 in the others");
  }

  @Test
  void weightedRrfScalesEachRankingsVotes() {
    List<List<ScoredId>> two = List.of(ranking("a", "b"), ranking("b", "a"));
    ReciprocalRankFusion rrf = new ReciprocalRankFusion(60);
    List<ScoredId> fused = rrf.fuse(two, List.of(3.0, 1.0), 2);
    assertEquals("a", fused.get(0).id());
    assertEquals(3.0 / 61 + 1.0 / 62, fused.get(0).score(), 1e-12);
    assertEquals(rrf.fuse(two, 2), rrf.fuse(two, List.of(1.0, 1.0), 2), "unit weights are plain RRF");
  }

  @Test
  void weightsMustMatchTheRankingsAndBeFiniteAndNonNegative() {
    List<List<ScoredId>> two = List.of(ranking("a"), ranking("b"));
    MinMaxBlend blend = new MinMaxBlend(0.5);
    assertThrows(IllegalArgumentException.class, () -> blend.fuse(two, List.of(1.0), 2));
    assertThrows(IllegalArgumentException.class, () -> blend.fuse(two, List.of(1.0, -1.0), 2));
    assertThrows(IllegalArgumentException.class,
        () -> new ReciprocalRankFusion(60).fuse(two, List.of(1.0, Double.NaN), 2));
    assertThrows(IllegalArgumentException.class,
        () -> new ReciprocalRankFusion(60).fuse(two, List.of(1.0, Double.POSITIVE_INFINITY), 2));
  }
}
