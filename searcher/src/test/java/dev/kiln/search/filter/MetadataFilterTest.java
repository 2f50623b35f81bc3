package dev.kiln.search.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import dev.kiln.search.Setting;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
    assertEquals(Map.of("url", Set.of("https://x.org/a=b")), f.conditions());
  }

  @Test
  void malformedExpressionsNameTheOption() {
    for (String bad : List.of("novalue", "=x", "key=", "bad key=1")) {
      FilterException e = assertThrows(FilterException.class, () -> MetadataFilter.parse(List.of(bad)));
      assertEquals(Setting.FILTER, e.setting());
      assertTrue(e.getMessage().startsWith("malformed filter "), e.getMessage());
      assertFalse(e.getMessage().contains("--"), "the library's own terms: " + e.getMessage());
    }
  }

  @Test
  void emptyFiltersFilterNothing() {
    assertTrue(MetadataFilter.parse(null).isEmpty());
    assertNull(MetadataFilter.none().toQuery());
    assertTrue(MetadataFilter.none().matches(Map.of()));
  }

  @Test
  void tooManyDistinctKeysAreABadFilterNotASearchFailure() {
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 1025; i++) {
      many.add("k" + i + "=v");
    }
    FilterException e = assertThrows(FilterException.class, () -> MetadataFilter.parse(many));
    assertTrue(e.getMessage().startsWith("filter names 1025 distinct keys"), e.getMessage());
    assertThrows(ConfigException.class, () -> MetadataFilter.parse(many.subList(0, MetadataFilter.MAX_KEYS + 1)));
    // At the limit the filter is accepted, and many values of one key stay one clause.
    assertEquals(MetadataFilter.MAX_KEYS, MetadataFilter.parse(many.subList(0, MetadataFilter.MAX_KEYS)).conditions().size());
    List<String> values = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      values.add("tenant=t" + i);
    }
    assertEquals(1, MetadataFilter.parse(values).conditions().size());
  }
}
