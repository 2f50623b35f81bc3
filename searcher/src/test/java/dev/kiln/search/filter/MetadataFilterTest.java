package dev.kiln.search.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetadataFilterTest {
  @Test
  void keysAndValuesOfOneKeyOr() {
    MetadataFilter f = MetadataFilter.parse(List.of("lang=en", "tenant:acme", "lang=de"));
    assertEquals("lang=en,lang=de,tenant=acme", f.toString());
    assertTrue(f.matches(Map.of("lang", "de", "tenant", "acme")));
    assertFalse(f.matches(Map.of("lang", "fr", "tenant", "acme")));
    assertFalse(f.matches(Map.of("lang", "en")));
    // FILTER clauses print as '#': they restrict without scoring.
    assertEquals("#meta.lang:(de en) #meta.tenant:acme", f.toQuery().toString());
  }

  @Test
  void theFirstSeparatorSplitsSoValuesMayHoldEither() {
    MetadataFilter f = MetadataFilter.parse(List.of("url=https://x.org/a=b"));
    assertEquals(Map.of("url", java.util.Set.of("https://x.org/a=b")), f.conditions());
  }

  @Test
  void malformedExpressionsNameTheOption() {
    for (String bad : List.of("novalue", "=x", "key=", "bad key=1")) {
      ConfigException e = assertThrows(ConfigException.class, () -> MetadataFilter.parse(List.of(bad)));
      assertTrue(e.getMessage().contains("--filter"), e.getMessage());
    }
  }

  @Test
  void emptyFiltersFilterNothing() {
    assertTrue(MetadataFilter.parse(null).isEmpty());
    assertNull(MetadataFilter.none().toQuery());
    assertTrue(MetadataFilter.none().matches(Map.of()));
  }
}
