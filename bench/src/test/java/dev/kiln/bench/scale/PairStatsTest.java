package dev.kiln.bench.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The per-pair summary: values kept in run order, median of odd and even counts, range, target. */
class PairStatsTest {
  @Test
  void keepsEachPairInOrderAndGivesMedianAndRange() {
    Map<String, Object> odd = PairStats.of(List.of(1.5, 0.8, 1.1), 1.3);
    assertEquals(List.of(1.5, 0.8, 1.1), odd.get("per_pair"));
    assertEquals(1.1, odd.get("median"));
    assertEquals(0.8, odd.get("min"));
    assertEquals(1.5, odd.get("max"));
    assertEquals(1.3, odd.get("target_at_most"));
    Map<String, Object> even = PairStats.of(List.of(4.0, 1.0, 2.0, 3.0), null);
    assertEquals(2.5, even.get("median"));
    assertFalse(even.containsKey("target_at_most"));
  }

  @Test
  void noPairsGiveNoMedian() {
    Map<String, Object> none = PairStats.of(List.of(), null);
    assertNull(none.get("median"));
    assertEquals(List.of(), none.get("per_pair"));
  }
}
