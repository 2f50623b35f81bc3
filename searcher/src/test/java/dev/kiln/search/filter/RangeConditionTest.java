package dev.kiln.search.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.RangeType;
import dev.kiln.search.Setting;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The range syntax of {@code --filter} and what each bound means once bound to a key's type. */
class RangeConditionTest {
  static final SortedMap<String, RangeType> TYPES = new TreeMap<>(Map.of("version", RangeType.LONG, "score",
      RangeType.DOUBLE, "modified", RangeType.DATE));

  static MetadataFilter bound(String... expressions) {
    return MetadataFilter.parse(List.of(expressions)).bind(TYPES, "S1");
  }

  static boolean admits(String expression, String key, String value) {
    return bound(expression).matches(Map.of(key, value));
  }

  @Test
  void everyOperatorAndBothBoundsParse() {
    MetadataFilter f = MetadataFilter.parse(List.of("version>=3", "score<2.5", "2026-01-01<=modified<2026-02-01",
        "tenant=acme"));
    assertEquals(Map.of("tenant", Set.of("acme")), f.conditions());
    assertEquals(List.of(new RangeCondition.Bound(RangeCondition.Op.GE, "2026-01-01"),
        new RangeCondition.Bound(RangeCondition.Op.LT, "2026-02-01")), f.ranges().get("modified").bounds());
    assertEquals("tenant=acme,modified>=2026-01-01,modified<2026-02-01,score<2.5,version>=3", f.toString());
    assertEquals(List.of(new RangeCondition.Bound(RangeCondition.Op.GE, "2026-01-01T10:00:00Z"),
        new RangeCondition.Bound(RangeCondition.Op.LE, "2026-02-01")),
        MetadataFilter.parse(List.of("2026-01-01T10:00:00Z<=modified<=2026-02-01")).ranges().get("modified").bounds(),
        "two bounds around the key, although a ':' comes before the first '<'");
    assertEquals(List.of(new RangeCondition.Bound(RangeCondition.Op.GT, "5"), new RangeCondition.Bound(
        RangeCondition.Op.LE, "9")), MetadataFilter.parse(List.of("version>5", "version<=9")).ranges().get("version")
        .bounds(), "two expressions on one key are ANDed");
    assertEquals(List.of(new RangeCondition.Bound(RangeCondition.Op.LT, "9"), new RangeCondition.Bound(
        RangeCondition.Op.GT, "5")), MetadataFilter.parse(List.of("9>version>5")).ranges().get("version").bounds());
  }

  @Test
  void anExactMatchMayStillHoldAngleBrackets() {
    MetadataFilter f = MetadataFilter.parse(List.of("title=a<b", "note:x>y", "path=1<b<2"));
    assertTrue(f.ranges().isEmpty());
    assertEquals(Set.of("1<b<2"), f.conditions().get("path"));
    assertEquals(Set.of("a<b"), f.conditions().get("title"));
    assertEquals(Set.of("x>y"), f.conditions().get("note"));
  }

  @Test
  void malformedRangesNameTheOption() {
    for (String bad : List.of("version>=", ">=3", "version>=3<4", "1<version>5", "a<b<c<d", "bad key>=1",
        "version>>3")) {
      FilterException e = assertThrows(FilterException.class, () -> MetadataFilter.parse(List.of(bad)), bad);
      assertEquals(Setting.FILTER, e.setting());
      assertTrue(e.getMessage().startsWith("malformed filter "), e.getMessage());
      assertFalse(e.getMessage().contains("--"), "the library's own terms: " + e.getMessage());
    }
  }

  @Test
  void longKeysRoundDecimalBoundsInwards() {
    assertTrue(admits("version>=3", "version", "3"));
    assertFalse(admits("version>3", "version", "3"));
    assertTrue(admits("version>2.5", "version", "3"));
    assertFalse(admits("version>2.5", "version", "2"));
    assertTrue(admits("version<3.5", "version", "3"));
    assertFalse(admits("version<3", "version", "3"));
    assertTrue(admits("version<=3", "version", "3.0"), "3.0 is the integer 3");
    assertFalse(admits("version>=0", "version", "v3"), "not a number: no range admits it");
    assertFalse(admits("version>=0", "other", "3"), "no value: no range admits it");
    assertTrue(admits("version>=-1e30", "version", String.valueOf(Long.MIN_VALUE)), "bounds beyond 64 bits clamp");
    assertFalse(admits("version>1e30", "version", String.valueOf(Long.MAX_VALUE)), "and may admit nothing");
    RangeCondition.Interval i = bound("version>2.5", "version<=7.9").ranges().isEmpty() ? null
        : MetadataFilter.parse(List.of("version>2.5", "version<=7.9")).ranges().get("version").bind(RangeType.LONG);
    assertEquals(3, i.lo());
    assertEquals(7, i.hi());
    assertTrue(MetadataFilter.parse(List.of("version>5", "version<5")).ranges().get("version").bind(RangeType.LONG)
        .empty());
  }

  @Test
  void doubleKeysCompareExactly() {
    assertTrue(admits("score>=2.5", "score", "2.5"));
    assertFalse(admits("score>2.5", "score", "2.5"));
    assertTrue(admits("score>2.5", "score", "2.5000001"));
    assertTrue(admits("score<=-0.1", "score", "-0.10"));
    assertFalse(admits("score<-0.1", "score", "-0.1"));
    assertTrue(admits("score<1e3", "score", "999.99"));
    assertFalse(admits("score>=0", "score", "NaN"), "NaN is no number here");
    assertFalse(admits("score>=0", "score", "Infinity"));
  }

  @Test
  void aDateAloneStandsForItsWholeDayInUtc() {
    assertTrue(admits("modified>=2026-01-01", "modified", "2026-01-01T00:00:00Z"));
    assertFalse(admits("modified>=2026-01-01", "modified", "2025-12-31T23:59:59.999Z"));
    assertTrue(admits("modified<=2026-01-01", "modified", "2026-01-01T23:59:59.999Z"), "all of January 1st");
    assertFalse(admits("modified<=2026-01-01", "modified", "2026-01-02T00:00:00Z"));
    assertFalse(admits("modified>2026-01-01", "modified", "2026-01-01T18:00:00Z"), "> the day: from the next one");
    assertTrue(admits("modified>2026-01-01", "modified", "2026-01-02"));
    assertFalse(admits("modified<2026-01-01", "modified", "2026-01-01"));
    assertTrue(admits("modified<2026-01-01", "modified", "2025-12-31T23:59:59Z"));
    assertTrue(admits("modified>=2026-01-01", "modified", "2026-01-01T01:00:00+02:00") == false,
        "an offset is honoured: that is 2025-12-31T23:00Z");
    assertTrue(admits("modified<2026-01-01T10:00:00Z", "modified", "2026-01-01T09:59:59.999Z"));
    assertFalse(admits("modified<2026-01-01T10:00:00Z", "modified", "2026-01-01T10:00:00Z"));
    assertTrue(admits("modified>=2026-01-01 10:00:00", "modified", "2026-01-01T10:00Z"), "a space for the T, UTC");
  }

  @Test
  void boundingRefusesRangesOnOtherKeysAndBoundsOfTheWrongType() {
    FilterException notIndexed = assertThrows(FilterException.class, () -> bound("tenant>=a"));
    assertTrue(notIndexed.getMessage().contains("'tenant' is not range-indexed in snapshot S1")
        && notIndexed.getMessage().contains("range fields: modified, score, version"), notIndexed.getMessage());
    FilterException none = assertThrows(FilterException.class, () -> MetadataFilter.parse(List.of("version>1"))
        .bind(new TreeMap<>(), "S0"));
    assertTrue(none.getMessage().contains("has no range fields"), none.getMessage());
    assertTrue(assertThrows(FilterException.class, () -> bound("version>=three")).getMessage()
        .contains("'three' is not a number (version is range-indexed as long)"));
    assertTrue(assertThrows(FilterException.class, () -> bound("modified>=2026-13-01")).getMessage()
        .contains("is not an ISO date"));
    assertThrows(IllegalStateException.class, () -> MetadataFilter.parse(List.of("version>1")).toQuery(),
        "an unbound range cannot become a query");
    assertEquals("#meta.tenant:acme #range.version:[3 TO 9223372036854775807]",
        bound("tenant=acme", "version>=3").toQuery().toString());
  }

  @Test
  void rangeKeysCountTowardsTheKeyLimit() {
    List<String> many = new ArrayList<>();
    for (int i = 0; i < MetadataFilter.MAX_KEYS; i++) {
      many.add("k" + i + "=v");
    }
    many.add("version>=1");
    assertThrows(FilterException.class, () -> MetadataFilter.parse(many));
  }

  @Test
  void anApiKeysBindingNarrowsExactValuesAndKeepsRanges() {
    MetadataFilter requested = MetadataFilter.parse(List.of("tenant=acme", "tenant=globex", "version>=3"));
    MetadataFilter narrowed = requested.withConditions(Map.of("tenant", List.of("acme")));
    assertEquals("tenant=acme,version>=3", narrowed.toString());
  }
}
