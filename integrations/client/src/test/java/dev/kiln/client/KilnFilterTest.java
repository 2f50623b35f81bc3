package dev.kiln.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KilnFilterTest {
  @Test
  void andOfDifferentKeysKeepsEveryCondition() {
    KilnFilter f = KilnFilter.eq("lang", "en").and(KilnFilter.range("year", RangeOp.GTE, 2020))
        .and(KilnFilter.in("topic", List.of("geology", "sport")));
    assertEquals(List.of("lang=en", "topic=geology", "topic=sport", "year>=2020"), f.expressions());
  }

  @Test
  void andOfOneKeyIntersectsItsValues() {
    assertEquals(Map.of("lang", Set.of("de")),
        KilnFilter.in("lang", List.of("en", "de")).and(KilnFilter.in("lang", List.of("de", "fr"))).exact());
    KilnFilter none = KilnFilter.eq("lang", "en").and(KilnFilter.eq("lang", "de"));
    assertTrue(none.matchesNothing(), "lang = en AND lang = de holds for no chunk; Kiln's lang=en lang=de means OR");
    assertTrue(none.and(KilnFilter.eq("topic", "x")).matchesNothing());
  }

  @Test
  void orJoinsValuesOfOneKeyOnly() {
    assertEquals(List.of("lang=en", "lang=de"), KilnFilter.eq("lang", "en").or(KilnFilter.eq("lang", "de")).expressions());
    assertEquals(List.of("lang=de"), KilnFilter.nothing().or(KilnFilter.eq("lang", "de")).expressions());
    UnsupportedFilterException across = assertThrows(UnsupportedFilterException.class,
        () -> KilnFilter.eq("lang", "en").or(KilnFilter.eq("topic", "geology")));
    assertTrue(across.getMessage().contains("an OR must join exact values of one key"), across.getMessage());
    assertThrows(UnsupportedFilterException.class,
        () -> KilnFilter.range("year", RangeOp.GT, 1).or(KilnFilter.range("year", RangeOp.LT, 0)));
  }

  @Test
  void valuesAreComparedAsText() {
    assertEquals(List.of("year=2020", "id=7f000001"), KilnFilter.eq("year", 2020).and(KilnFilter.eq("id", "7f000001"))
        .expressions());
  }

  @Test
  void refusesWhatKilnCannotStore() {
    assertThrows(UnsupportedFilterException.class, () -> KilnFilter.eq("bad key", "x"));
    assertThrows(UnsupportedFilterException.class, () -> KilnFilter.in("lang", List.of()));
    assertThrows(UnsupportedFilterException.class, () -> KilnFilter.eq("lang", List.of("en")));
  }

  @Test
  void theHttpBodyCarriesValuesVerbatimOrFallsBackToExpressions() {
    assertEquals("{\"lang\":[\"en\",\"a<b\"],\"year\":{\"gte\":\"2020\",\"lt\":\"2024\"}}",
        HttpBackend.filterJson(KilnFilter.in("lang", List.of("en", "a<b")).and(KilnFilter.range("year", RangeOp.GTE, 2020))
            .and(KilnFilter.range("year", RangeOp.LT, 2024))).toString());
    assertEquals("[\"year=2020\",\"year>=2020\"]",
        HttpBackend.filterJson(KilnFilter.eq("year", 2020).and(KilnFilter.range("year", RangeOp.GTE, 2020))).toString());
  }
}
