package dev.kiln.search.rewrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

class Rm3RewriterTest {
  private static final RewriteContext CONTEXT = new RewriteContext() {
    @Override
    public Map<String, Integer> analyze(String text) {
      Map<String, Integer> counts = new LinkedHashMap<>();
      for (String t : text.toLowerCase(Locale.ROOT).split("\\W+")) {
        if (!t.isEmpty()) {
          counts.merge(t, 1, Integer::sum);
        }
      }
      return counts;
    }

    @Override
    public List<String> firstPassTexts(String query, int n) {
      return List.of("lava magma eruption lava", "magma chamber lava", "unrelated words here").subList(0, Math.min(n, 3));
    }
  };

  @Test
  void expandsWithFeedbackTermsAndKeepsTheOriginalWeight() {
    RewrittenQuery q = new Rm3Rewriter(2, 3, 0.5f).rewrite("volcano", CONTEXT);
    assertEquals("volcano", q.denseText());
    Map<String, Float> w = q.bm25Terms();
    assertEquals(0.5f, w.get("volcano"), 1e-6);
    // lava: 0.5 (doc 1, rank prior 1) + 1/3 · 0.5 (doc 2) dominates; magma next; chamber or eruption third.
    assertTrue(w.get("lava") > w.get("magma"), w.toString());
    assertEquals(4, w.size(), w.toString());
    assertEquals(1.0, w.values().stream().mapToDouble(Float::doubleValue).sum(), 1e-5);
  }

  @Test
  void expansionTermsHeldByTooManyChunksAreLeftOutButTheQuerysOwnTermsStay() {
    // lava, magma and the query's own "volcano" are in most chunks; eruption and chamber in few.
    Map<String, Double> ratios = Map.of("lava", 0.6, "magma", 0.3, "volcano", 0.9, "eruption", 0.01, "chamber", 0.02);
    RewriteContext counted = withFeedback(List.of("lava magma eruption lava volcano", "magma chamber lava"),
        term -> ratios.getOrDefault(term, 0.0));
    Map<String, Float> all = new Rm3Rewriter(2, 5, 0.5f).rewrite("volcano", counted).bm25Terms();
    Map<String, Float> capped = new Rm3Rewriter(2, 5, 0.5f, 0.2).rewrite("volcano", counted).bm25Terms();
    assertTrue(all.keySet().containsAll(List.of("lava", "magma", "eruption", "chamber")), all.toString());
    assertEquals(Set.of("volcano", "eruption", "chamber"), capped.keySet());
    // The kept terms weigh what they weighed among all five: the common ones' share is not handed out.
    for (String t : capped.keySet()) {
      assertEquals(all.get(t), capped.get(t), 1e-7, t);
    }
    assertTrue(capped.get("volcano") > 0.5f, "the query's own term keeps its feedback share too: " + capped);
    assertEquals(all, new Rm3Rewriter(2, 5, 0.5f, 1).rewrite("volcano", counted).bm25Terms(), "1 keeps every term");
  }

  @Test
  void aQueryWithoutFeedbackStaysAsItIs() {
    RewriteContext empty = withFeedback(List.of(), term -> 0);
    assertEquals(Map.of("volcano", 2f), new Rm3Rewriter().rewrite("volcano volcano", empty).bm25Terms());
  }

  /** {@link #CONTEXT}'s analysis with these feedback texts and document ratios. */
  private static RewriteContext withFeedback(List<String> texts, ToDoubleFunction<String> ratios) {
    return new RewriteContext() {
      @Override
      public Map<String, Integer> analyze(String text) {
        return CONTEXT.analyze(text);
      }

      @Override
      public List<String> firstPassTexts(String query, int n) {
        return texts.subList(0, Math.min(n, texts.size()));
      }

      @Override
      public double docRatio(String term) {
        return ratios.applyAsDouble(term);
      }
    };
  }

  @Test
  void heaviestTermsAreTheFirstOfTheWholeModelSortedWithTiesByTerm() {
    Random random = new Random(7);
    Comparator<Map.Entry<String, Double>> sorted =
        Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey());
    for (int round = 0; round < 200; round++) {
      Map<String, Double> model = new HashMap<>();
      int terms = random.nextInt(60);
      for (int i = 0; i < terms; i++) {
        // Few distinct weights, so that ties (broken by term) are common.
        model.put("t" + random.nextInt(1000), (double) random.nextInt(5));
      }
      int n = 1 + random.nextInt(12);
      List<Map.Entry<String, Double>> all = new ArrayList<>(model.entrySet());
      all.sort(sorted);
      List<Map.Entry<String, Double>> expected = all.subList(0, Math.min(n, all.size()));
      assertEquals(expected, Rm3Rewriter.heaviest(model, n), "round " + round + ", n " + n);
    }
  }
}
