package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DriftTest {
  @Test
  void withinToleranceIsNotDriftInEitherDirection() {
    assertFalse(new Drift("d", "bm25", "ndcg@10", 0.50, 0.504, 0.005).drifted());
    assertFalse(new Drift("d", "bm25", "ndcg@10", 0.50, 0.496, 0.005).drifted());
    assertFalse(new Drift("d", "bm25", "ndcg@10", 0.50, 0.505, 0.005).drifted(), "the bound itself passes");
  }

  @Test
  void beyondToleranceIsDriftEvenWhenBetter() {
    assertTrue(new Drift("d", "bm25", "ndcg@10", 0.50, 0.494, 0.005).drifted());
    assertTrue(new Drift("d", "bm25", "ndcg@10", 0.50, 0.506, 0.005).drifted(),
        "an unrecorded improvement must be recorded, not silently accepted");
  }
}
