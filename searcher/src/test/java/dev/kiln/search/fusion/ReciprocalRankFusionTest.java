package dev.kiln.search.fusion;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReciprocalRankFusionTest {
  private final ReciprocalRankFusion rrf = new ReciprocalRankFusion(60);

  @Test
  void workedExample() {
    // ANN [A, B, C], BM25 [B, C, A]:
    //   A = 1/(60+1) + 1/(60+3) = 1/61 + 1/63 ≈ 0.032266
    //   B = 1/(60+2) + 1/(60+1) = 1/62 + 1/61 ≈ 0.032522
    //   C = 1/(60+3) + 1/(60+2) = 1/63 + 1/62 ≈ 0.032002
    List<ScoredId> fused = rrf.fuseIds(List.of(List.of("A", "B", "C"), List.of("B", "C", "A")), 10);
    assertEquals(List.of("B", "A", "C"), fused.stream().map(ScoredId::id).toList());
    assertEquals(1.0 / 61 + 1.0 / 62, fused.get(0).score(), 1e-15);
    assertEquals(1.0 / 61 + 1.0 / 63, fused.get(1).score(), 1e-15);
    assertEquals(1.0 / 62 + 1.0 / 63, fused.get(2).score(), 1e-15);
  }

  @Test
  void scoredInputIgnoresScoresAndCutsToK() {
    List<ScoredId> ann = List.of(new ScoredId("A", 0.9), new ScoredId("B", 0.8), new ScoredId("C", 0.1));
    List<ScoredId> bm25 = List.of(new ScoredId("B", 12.0), new ScoredId("C", 11.0), new ScoredId("A", 0.5));
    List<ScoredId> fused = rrf.fuse(List.of(ann, bm25), 2);
    assertEquals(List.of("B", "A"), fused.stream().map(ScoredId::id).toList());
  }

  @Test
  void itemsInOnlyOneListStillCount() {
    // D: 1/61 (first in one list only); A: 1/62 + 1/62 = 2/62 > 1/61.
    List<ScoredId> fused = rrf.fuseIds(List.of(List.of("D", "A"), List.of("E", "A")), 10);
    assertEquals(List.of("A", "D", "E"), fused.stream().map(ScoredId::id).toList());
    assertEquals(2.0 / 62, fused.get(0).score(), 1e-15);
  }

  @Test
  void tiesAreBrokenById() {
    // Mirror-image rankings give every id the same score: 1/61 + 1/62.
    List<ScoredId> fused = rrf.fuseIds(List.of(List.of("b", "a"), List.of("a", "b")), 10);
    assertEquals(List.of("a", "b"), fused.stream().map(ScoredId::id).toList());
    assertEquals(fused.get(0).score(), fused.get(1).score());
  }

  @Test
  void aRepeatedIdVotesOnceAtItsBestRank() {
    List<ScoredId> fused = rrf.fuseIds(List.of(List.of("A", "A", "B")), 10);
    assertEquals(1.0 / 61, fused.get(0).score(), 1e-15);
    assertEquals(1.0 / 63, fused.get(1).score(), 1e-15);
  }

  @Test
  void emptyInputGivesEmptyOutput() {
    assertEquals(List.of(), rrf.fuseIds(List.of(), 5));
    assertEquals(List.of(), rrf.fuseIds(List.of(List.of("A")), 0));
  }
}
