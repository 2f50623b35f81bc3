package dev.kiln.search.rewrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link KeywordExpansionRewriter} over a small corpus held in a {@link RewriteContext} of its own. */
class KeywordExpansionRewriterTest {
  /** Whitespace analysis, a fixed first pass and document ratios from a fixed table. */
  private record Context(List<String> firstPass, Map<String, Double> ratios) implements RewriteContext {
    @Override
    public Map<String, Integer> analyze(String text) {
      Map<String, Integer> counts = new LinkedHashMap<>();
      for (String t : text.toLowerCase(Locale.ROOT).split("\\s+")) {
        if (!t.isEmpty()) {
          counts.merge(t, 1, Integer::sum);
        }
      }
      return counts;
    }

    @Override
    public List<String> firstPassTexts(String query, int n) {
      return firstPass.subList(0, Math.min(n, firstPass.size()));
    }

    @Override
    public double docRatio(String term) {
      return ratios.getOrDefault(term, 0.0);
    }
  }

  private static final Map<String, Double> RATIOS = Map.of("magma", 0.01, "lava", 0.01, "basalt", 0.004,
      "crust", 0.02, "the", 0.9, "rock", 0.2, "pastry", 0.003, "eruption", 0.01);

  @Test
  void addsRareTermsSeveralChunksShareBelowTheOriginals() {
    Context context = new Context(List.of(
        "magma erupts as lava through the crust basalt",
        "lava cools into basalt rock the",
        "basalt lava the crust",
        "pastry dough the oven"), RATIOS);
    RewrittenQuery q = new KeywordExpansionRewriter().rewrite("magma eruption", context);
    Map<String, Float> w = q.bm25Terms();
    assertEquals(1f, w.get("magma"));
    assertEquals(1f, w.get("eruption"));
    assertTrue(w.containsKey("lava") && w.containsKey("basalt") && w.containsKey("crust"), w.toString());
    float best = Math.max(w.get("lava"), w.get("basalt"));
    assertEquals(KeywordExpansionRewriter.DEFAULT_WEIGHT, best, 1e-6);
    assertTrue(w.get("crust") < best, w.toString());
    assertFalse(w.containsKey("the"), "too common: " + w);
    assertFalse(w.containsKey("rock"), "above the document ratio: " + w);
    assertFalse(w.containsKey("pastry"), "one chunk only: " + w);
    assertEquals("magma eruption", q.denseText());
    assertFalse(q.densePassage());
  }

  @Test
  void leavesAQueryAloneWithoutEvidence() {
    Map<String, Float> w = new KeywordExpansionRewriter().rewrite("magma", new Context(List.of(), RATIOS))
        .bm25Terms();
    assertEquals(Map.of("magma", 1f), w);
    assertEquals(Map.of(), new KeywordExpansionRewriter().rewrite("  ", new Context(List.of("lava"), RATIOS))
        .bm25Terms());
    assertFalse(new KeywordExpansionRewriter().rewritesDenseText());
    assertThrows(IllegalArgumentException.class, () -> new KeywordExpansionRewriter(0, 6, 2, 0.3f, 0.05));
  }

  @Test
  void theShippedRewritersAreFoundByName() {
    assertTrue(QueryRewriters.named("keywords") instanceof KeywordExpansionRewriter);
    assertTrue(QueryRewriters.named("rm3") instanceof Rm3Rewriter);
    assertEquals(QueryRewriter.IDENTITY, QueryRewriters.named("none"));
    assertTrue(QueryRewriters.named("keywords") == QueryRewriters.named("keywords"), "made once, shared");
  }
}
