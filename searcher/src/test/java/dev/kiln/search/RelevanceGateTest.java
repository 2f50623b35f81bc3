package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RelevanceGateTest {
  private static List<SearchHit> hits(double... scores) {
    List<SearchHit> out = new ArrayList<>();
    for (int i = 0; i < scores.length; i++) {
      out.add(new SearchHit("d" + i + "#0", "d" + i, scores[i], "t", "", Map.of()));
    }
    return out;
  }

  private static List<Double> scores(List<SearchHit> hits) {
    return hits.stream().map(SearchHit::score).toList();
  }

  @Test
  void floorAndDropEachCut() {
    List<SearchHit> h = hits(0.9, 0.8, 0.5, 0.2);
    assertEquals(List.of(0.9, 0.8, 0.5), scores(new RelevanceGate(0.3, Double.NaN).apply(h)));
    assertEquals(List.of(0.9, 0.8), scores(new RelevanceGate(Double.NaN, 0.15).apply(h)));
    assertEquals(List.of(0.9, 0.8, 0.5), scores(new RelevanceGate(0.5, 0.4).apply(h)));
    assertEquals(h, RelevanceGate.OFF.apply(h));
  }

  @Test
  void whenNothingPassesTheResponseIsEmptyWithAReason() {
    List<SearchHit> kept = new RelevanceGate(0.95, Double.NaN).apply(hits(0.9, 0.8));
    SearchResponse r = new SearchResponse("snap", SearchMode.DENSE, kept);
    assertEquals(List.of(), r.results());
    assertEquals("no relevant context", r.reason());
    assertEquals(null, new SearchResponse("snap", SearchMode.DENSE, hits(1)).reason());
  }

  @Test
  void refusalsSayWhichRuleDroppedEachHitAndMatchWhatApplyKeeps() {
    List<SearchHit> h = hits(0.9, 0.8, 0.5, 0.2);
    RelevanceGate gate = new RelevanceGate(0.3, 0.35);
    List<String> why = gate.refusals(h);
    assertEquals(null, why.get(0));
    assertEquals(null, why.get(1));
    assertEquals("calibrated score 0.5 is more than 0.35 below the top hit's 0.9", why.get(2));
    assertEquals("calibrated score 0.2 is under the floor 0.3", why.get(3));
    assertEquals(List.of(0.9, 0.8), scores(gate.apply(h)));
    assertEquals(List.of(0.9, 0.8, 0.5, 0.2), scores(RelevanceGate.OFF.apply(h)));
    List<String> none = new ArrayList<>();
    none.add(null);
    none.add(null);
    assertEquals(none, RelevanceGate.OFF.refusals(hits(0.9, 0.1)));
  }
}
