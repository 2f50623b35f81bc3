package dev.kiln.langchain4j;

import static dev.langchain4j.store.embedding.filter.MetadataFilterBuilder.metadataKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.client.KilnFilter;
import dev.kiln.client.UnsupportedFilterException;
import dev.langchain4j.store.embedding.filter.Filter;
import dev.langchain4j.store.embedding.filter.logical.Not;
import java.util.List;
import org.junit.jupiter.api.Test;

class LangChain4jFiltersTest {
  @Test
  void comparisonsAndConjunctionsBecomeKilnExpressions() {
    Filter f = metadataKey("lang").isEqualTo("en")
        .and(metadataKey("year").isGreaterThanOrEqualTo(2020))
        .and(metadataKey("year").isLessThan(2024L))
        .and(metadataKey("topic").isIn("geology", "sport"));
    assertEquals(List.of("lang=en", "topic=geology", "topic=sport", "year>=2020", "year<2024"),
        LangChain4jFilters.toKiln(f).expressions());
    assertEquals(List.of("year>2019", "year<=2021"), LangChain4jFilters.toKiln(
        metadataKey("year").isGreaterThan(2019).and(metadataKey("year").isLessThanOrEqualTo(2021))).expressions());
  }

  @Test
  void orOfOneKeyIsKilnsInAndNullIsNoFilter() {
    assertEquals(List.of("lang=en", "lang=de"),
        LangChain4jFilters.toKiln(metadataKey("lang").isEqualTo("en").or(metadataKey("lang").isEqualTo("de")))
            .expressions());
    assertEquals(KilnFilter.none(), LangChain4jFilters.toKiln(null));
  }

  @Test
  void operatorsKilnCannotEvaluateAreRefusedByName() {
    List<Filter> refused = List.of(
        metadataKey("lang").isNotEqualTo("en"),
        metadataKey("lang").isNotIn("en", "de"),
        metadataKey("title").containsString("lava"),
        new Not(metadataKey("lang").isEqualTo("en")),
        metadataKey("lang").isEqualTo("en").or(metadataKey("topic").isEqualTo("geology")));
    for (Filter f : refused) {
      UnsupportedFilterException e = assertThrows(UnsupportedFilterException.class, () -> LangChain4jFilters.toKiln(f),
          f.toString());
      assertTrue(e.getMessage().startsWith("Kiln cannot evaluate"), e.getMessage());
    }
  }
}
