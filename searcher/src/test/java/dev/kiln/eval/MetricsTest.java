package dev.kiln.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsTest {
  private static final double EPS = 1e-12;

  private static double log2(double x) {
    return Math.log(x) / Math.log(2);
  }

  @Test
  void ndcgWithGradedRelevance() {
    // Ranking [d1, d2, d3] with grades d1=1, d2=0 (judged non-relevant), d3=2:
    //   DCG  = 1/log2(2) + 0/log2(3) + 2/log2(4) = 1 + 0 + 1 = 2
    //   IDCG = 2/log2(2) + 1/log2(3)             = 2 + 0.6309298 = 2.6309298
    //   nDCG = 2 / 2.6309298 = 0.7601875
    Map<String, Integer> grades = Map.of("d1", 1, "d2", 0, "d3", 2);
    double expected = 2.0 / (2.0 + 1.0 / log2(3));
    assertEquals(expected, Metrics.ndcgAt(10, List.of("d1", "d2", "d3"), grades), EPS);
    assertEquals(0.7601875, expected, 1e-7);
  }

  @Test
  void perfectRankingHasNdcgOne() {
    Map<String, Integer> grades = Map.of("a", 3, "b", 2, "c", 1);
    assertEquals(1.0, Metrics.ndcgAt(10, List.of("a", "b", "c", "x", "y"), grades), EPS);
    // Unjudged documents after all relevant ones do not lower it either.
    assertEquals(1.0, Metrics.ndcgAt(3, List.of("a", "b", "c"), grades), EPS);
  }

  @Test
  void ndcgWhenRelevantDocumentsAreMissing() {
    // Relevant: a=1, b=1, c=1; retrieved [x, a] (b and c never retrieved):
    //   DCG  = 0/log2(2) + 1/log2(3) = 0.6309298
    //   IDCG = 1 + 1/log2(3) + 1/log2(4) = 1 + 0.6309298 + 0.5 = 2.1309298
    //   nDCG = 0.6309298 / 2.1309298 = 0.2960819
    Map<String, Integer> grades = Map.of("a", 1, "b", 1, "c", 1);
    double expected = (1 / log2(3)) / (1 + 1 / log2(3) + 0.5);
    assertEquals(expected, Metrics.ndcgAt(10, List.of("x", "a"), grades), EPS);
    assertEquals(0.2960819, expected, 1e-7);
  }

  @Test
  void ndcgCutsBothRankingAndIdealAtK() {
    // k=1, ranking [b, a], grades a=2, b=1: DCG@1 = 1/log2(2) = 1, IDCG@1 = 2/log2(2) = 2 → 0.5.
    assertEquals(0.5, Metrics.ndcgAt(1, List.of("b", "a"), Map.of("a", 2, "b", 1)), EPS);
  }

  @Test
  void ndcgIsZeroWithoutRelevantDocuments() {
    assertEquals(0.0, Metrics.ndcgAt(10, List.of("a"), Map.of("a", 0)), EPS);
    assertEquals(0.0, Metrics.ndcgAt(10, List.of(), Map.of("a", 1)), EPS);
  }

  @Test
  void recallCountsOnlyPositiveGradesWithinK() {
    // Relevant: a, b, c (d=0 is judged non-relevant). Top 2 of [a, d, b] holds a only: 1/3.
    Map<String, Integer> grades = Map.of("a", 2, "b", 1, "c", 1, "d", 0);
    assertEquals(1.0 / 3, Metrics.recallAt(2, List.of("a", "d", "b"), grades), EPS);
    // Top 3 holds a and b: 2/3.
    assertEquals(2.0 / 3, Metrics.recallAt(3, List.of("a", "d", "b"), grades), EPS);
    assertEquals(0.0, Metrics.recallAt(3, List.of("a"), Map.of("a", 0)), EPS);
  }

  @Test
  void mrrIsTheReciprocalRankOfTheFirstRelevant() {
    Map<String, Integer> grades = Map.of("r", 1, "n", 0);
    // First relevant at rank 3 → 1/3.
    assertEquals(1.0 / 3, Metrics.mrrAt(10, List.of("x", "n", "r"), grades), EPS);
    // First relevant at rank 11 is outside the top 10 → 0.
    List<String> late = List.of("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "r");
    assertEquals(0.0, Metrics.mrrAt(10, late, grades), EPS);
    // None at all → 0.
    assertEquals(0.0, Metrics.mrrAt(10, List.of("x", "n"), grades), EPS);
  }

  @Test
  void repeatedDocumentsAreCreditedOnce() {
    // [a, a, b] is read as [a, b]: both relevant documents are in the top 2, so recall@2 = 2/2
    // and DCG@2 = 1 + 1/log2(3) equals the ideal.
    Map<String, Integer> grades = Map.of("a", 1, "b", 1);
    assertEquals(1.0, Metrics.recallAt(2, List.of("a", "a", "b"), grades), EPS);
    assertEquals(1.0, Metrics.ndcgAt(2, List.of("a", "a", "b"), grades), EPS);
  }

  @Test
  void hitAtKIsOneWhenAnyRelevantDocumentIsInTheTopK() {
    Map<String, Integer> grades = Map.of("r", 1, "n", 0);
    assertEquals(1.0, Metrics.hitAt(10, List.of("x", "y", "r"), grades));
    assertEquals(0.0, Metrics.hitAt(2, List.of("x", "y", "r"), grades), "r is third");
    assertEquals(0.0, Metrics.hitAt(10, List.of("n", "x"), grades), "grade 0 is not relevant");
  }
}
