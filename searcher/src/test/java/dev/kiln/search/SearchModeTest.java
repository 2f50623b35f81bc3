package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import dev.kiln.index.KnnSearch;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.LexicalFeedback;
import org.junit.jupiter.api.Test;

class SearchModeTest {
  @Test
  void parsesNamesIgnoringCase() {
    assertEquals(SearchMode.HYBRID, SearchMode.parse("hybrid"));
    assertEquals(SearchMode.DENSE, SearchMode.parse("DENSE"));
    assertEquals(SearchMode.BM25, SearchMode.parse(" Bm25 "));
  }

  @Test
  void unknownModeNamesTheValidOnes() {
    ConfigException e = assertThrows(ConfigException.class, () -> SearchMode.parse("sparse"));
    assertTrue(e.getMessage().contains("'sparse'"), e.getMessage());
    assertTrue(e.getMessage().contains("hybrid, dense, bm25"), e.getMessage());
    assertThrows(ConfigException.class, () -> SearchMode.parse(null));
  }

  @Test
  void optionsHaveTheDocumentedDefaultsAndRejectNonsense() {
    SearchOptions defaults = SearchOptions.defaults();
    assertEquals(60, defaults.rrfK());
    assertEquals(100, defaults.candidateDepth());
    // The min-max blend (α 0.5) is the default fusion: it measured best (docs/QUALITY.md).
    assertEquals(FusionMethod.BLEND, defaults.fusion());
    assertEquals(0.5, defaults.alpha());
    // Hybrid's dense side takes pseudo-relevance feedback by default (chosen on SciFact train).
    assertEquals(DenseFeedback.DEFAULT, defaults.denseFeedback());
    assertEquals(DenseFeedback.OFF, defaults.withDenseFeedback(null).denseFeedback());
    assertEquals(LexicalFeedback.DEFAULT, defaults.lexicalFeedback());
    assertEquals(LexicalFeedback.OFF, defaults.withLexicalFeedback(null).lexicalFeedback());
    assertEquals(SearchOptions.builder().rrfK(10).build(), defaults.withRrfK(10));
    assertEquals(SearchOptions.builder().depth(5).build(), defaults.withCandidateDepth(5));
    assertTrue(defaults.describe().contains("dense-prf=3 docs x 0.25"), defaults.describe());
    assertTrue(defaults.withDenseFeedback(DenseFeedback.OFF).describe().contains("dense-prf=off"));
    assertTrue(defaults.describe().contains("hybrid-prf=rm3 from the fused top 10 (10 terms, original weight 0.7, none in over 0.2 of the chunks)"),
        defaults.describe());
    assertEquals(KnnSearch.AUTO_EF, defaults.ef());
    assertTrue(defaults.describe().contains(" ef=auto "), defaults.describe());
    assertTrue(defaults.queryEmbedders() >= 1 && defaults.queryEmbedders() <= 4, defaults.describe());
    assertTrue(defaults.withEf(250).withQueryEmbedders(3).describe().contains(" ef=250 query-embedders=3 "));
    assertEquals("ef must be >= 1, or 0 for the snapshot's default, was -1",
        assertThrows(ConfigException.class, () -> defaults.withEf(-1)).getMessage());
    assertEquals("query-embedders must be >= 1, was 0",
        assertThrows(ConfigException.class, () -> defaults.withQueryEmbedders(0)).getMessage());
    assertThrows(ConfigException.class, () -> defaults.withCandidateDepth(0));
    assertThrows(ConfigException.class, () -> defaults.withRrfK(-1));
  }
}
