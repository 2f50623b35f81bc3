package dev.kiln.bench.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 47.6: the scale benchmark's calibration queries (what the search depth is chosen on) and its
 * report queries (what recall is reported on) are disjoint down to the base queries they mix.
 */
class QuerySplitTest {
  @TempDir Path dir;

  @Test
  void theHalvesAreDisjointCoverEveryBaseQueryAndStayFixed() {
    for (int n : new int[] {2, 3, 10, 1109}) {
      List<Integer> cal = QuerySplit.CALIBRATION.members(n);
      List<Integer> rep = QuerySplit.REPORT.members(n);
      Set<Integer> both = new HashSet<>(cal);
      both.retainAll(rep);
      assertTrue(both.isEmpty(), "no base query in both sets: " + both);
      assertEquals(n, cal.size() + rep.size());
      assertEquals(n / 2, cal.size());
      assertEquals(cal, QuerySplit.CALIBRATION.members(n), "a fixed split");
    }
    // A hash, not the first half by position: the dataset's order (e.g. by topic) does not pick the halves.
    assertNotEquals(List.of(0, 1, 2, 3, 4), QuerySplit.CALIBRATION.members(10));
    assertEquals(List.of(0), QuerySplit.REPORT.members(1));
    assertThrows(IllegalStateException.class, () -> QuerySplit.CALIBRATION.members(1));
  }

  /**
   * Base query i is the i-th unit axis and the corpus adds no noise: a synthetic query's non-zero
   * coordinates are exactly the base queries it mixes, which must all be of its own half.
   */
  @Test
  void aSetsQueriesMixOnlyBaseQueriesOfItsHalf() throws Exception {
    int n = 12;
    List<float[]> axes = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      float[] v = new float[n];
      v[i] = 1f;
      axes.add(v);
      texts.add("query " + i);
    }
    Path corpus = dir.resolve("real.jsonl");
    Files.writeString(corpus, "{\"_id\": \"1\", \"title\": \"t\", \"text\": \"Glaciers creep downhill.\"}\n");
    BaseData base = new BaseData(axes, texts, axes, TextModel.of(corpus), "m");
    SyntheticCorpus synth = new SyntheticCorpus(base, 42, 0.0);
    for (QuerySplit set : QuerySplit.values()) {
      Set<Integer> half = new HashSet<>(set.members(n));
      Set<Integer> used = new HashSet<>();
      List<float[]> vectors = synth.queryVectors(set, 40);
      List<String> setTexts = synth.queryTexts(set, 40);
      for (int q = 0; q < vectors.size(); q++) {
        for (int d = 0; d < n; d++) {
          if (vectors.get(q)[d] != 0f) {
            assertTrue(half.contains(d), set + " query " + q + " mixes base query " + d + " of the other half");
            used.add(d);
          }
        }
        assertTrue(half.contains(Integer.parseInt(setTexts.get(q).substring(6))), "text of the own half");
      }
      assertEquals(half, used, set + " draws on its whole half");
    }
    assertEquals(synth.queryVectors(10).get(3)[0], synth.queryVectors(QuerySplit.REPORT, 10).get(3)[0],
        "the report set is the benchmark's default queries");
  }

  @Test
  void theDepthIsChosenOnCalibrationRecallAlone() {
    Map<Integer, Double> cal = Map.of(100, 0.91, 200, 0.95, 300, 0.97);
    assertEquals(200, EfSweep.chosen(cal, 0.95));
    assertEquals(100, EfSweep.chosen(cal, 0.9));
    assertNull(EfSweep.chosen(cal, 0.99), "no depth reaches it");
  }
}
