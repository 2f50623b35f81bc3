package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
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
    assertEquals(dev.kiln.search.fusion.FusionMethod.BLEND, defaults.fusion());
    assertEquals(0.5, defaults.alpha());
    assertEquals(new SearchOptions(10, 100).withFusion(dev.kiln.search.fusion.FusionMethod.BLEND), defaults.withRrfK(10));
    assertEquals(new SearchOptions(60, 5).withFusion(dev.kiln.search.fusion.FusionMethod.BLEND), defaults.withCandidateDepth(5));
    assertThrows(ConfigException.class, () -> defaults.withCandidateDepth(0));
    assertThrows(ConfigException.class, () -> defaults.withRrfK(-1));
  }
}
