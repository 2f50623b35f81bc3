package dev.kiln.search.fusion;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kiln.testing.TestSeeds;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The heap selection gives what sorting everything and cutting to k gives, ties by id included. */
@ExtendWith(TestSeeds.class)
class BestFirstTest {
  private static List<ScoredId> sortedCut(Map<String, Double> scores, int k) {
    List<ScoredId> all = new ArrayList<>();
    scores.forEach((id, s) -> all.add(new ScoredId(id, s)));
    all.sort(BestFirst.ORDER);
    return all.subList(0, Math.min(k, all.size()));
  }

  @RepeatedTest(30)
  void selectsWhatAFullSortCutToKSelects(Random random) {
    Map<String, Double> scores = new HashMap<>();
    int n = random.nextInt(300);
    for (int i = 0; i < n; i++) {
      // Few distinct scores: many ties, which the ids must order.
      scores.put("id" + random.nextInt(1000), random.nextBoolean() ? random.nextInt(5) / 4.0 : random.nextDouble());
    }
    int k = random.nextInt(n + 5);
    assertEquals(sortedCut(scores, k), BestFirst.top(scores, k), "n=" + n + " k=" + k);
  }

  @Test
  void equalScoresKeepTheSmallestIds() {
    Map<String, Double> scores = Map.of("d", 1.0, "b", 1.0, "c", 1.0, "a", 1.0, "e", 2.0);
    assertEquals(List.of(new ScoredId("e", 2.0), new ScoredId("a", 1.0), new ScoredId("b", 1.0)),
        BestFirst.top(scores, 3));
    assertEquals(List.of(), BestFirst.top(scores, 0));
  }
}
