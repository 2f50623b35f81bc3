package dev.kiln.search.filter;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.kiln.config.ConfigException;
import dev.kiln.config.RangeType;
import dev.kiln.testing.FuzzTries;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Fuzzes the filter expressions a query carries ({@code --filter}, {@code filter=} on the HTTP API):
 * {@link MetadataFilter#parse} with its {@link RangeCondition}s on random and filter-like strings, then
 * {@link MetadataFilter#bind} to a snapshot's range types, {@link MetadataFilter#toQuery} and {@link
 * MetadataFilter#matches} on random metadata. Each step gives its result or the usage error ({@link
 * FilterException}, a {@link dev.kiln.search.SettingException}: both {@link ConfigException}s) within a
 * time budget; nothing else is thrown.
 */
@AddLifecycleHook(FuzzTries.class)
class MetadataFilterFuzzTest {
  static final Duration BUDGET = Duration.ofSeconds(5);
  static final SortedMap<String, RangeType> TYPES = new TreeMap<>(Map.of("year", RangeType.LONG,
      "score", RangeType.DOUBLE, "date", RangeType.DATE, "x", RangeType.LONG, "", RangeType.DOUBLE));

  @Property(tries = 1000)
  void filterLikeExpressions(@ForAll("expressions") List<String> expressions,
      @ForAll("metadata") Map<String, String> metadata) {
    assertFilterOrUsageError(expressions, metadata);
  }

  @Property(tries = 1000)
  void randomStrings(@ForAll("randomLists") List<String> expressions, @ForAll("metadata") Map<String, String> metadata) {
    assertFilterOrUsageError(expressions, metadata);
  }

  static void assertFilterOrUsageError(List<String> expressions, Map<String, String> metadata) {
    assertTimeoutPreemptively(BUDGET, () -> {
      MetadataFilter f;
      try {
        f = MetadataFilter.parse(expressions).bind(TYPES, "20261203T172758Z-9f64fe");
      } catch (ConfigException usage) {
        return;
      }
      assertNotNull(f.toString());
      f.toQuery();
      f.matches(metadata);
    });
  }

  static Arbitrary<String> keys() {
    return Arbitraries.oneOf(Arbitraries.of("year", "score", "date", "x", "lang", "", " ", "a b", "\u0000", "é"),
        Arbitraries.strings().ofMaxLength(6));
  }

  static Arbitrary<String> values() {
    return Arbitraries.oneOf(
        Arbitraries.of("", " ", "0", "-0", "3", "3.0", "2.5", "-12", "1e3", "1e400", "-1e400", "NaN", "Infinity",
            "-Infinity", "0x10", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
            "1.7976931348623157E308", "4.9E-324", "2026-01-01", "2026-02-30", "2026-01-01T10:00:00Z",
            "+999999999-12-31", "-999999999-01-01", "2026-01-01T25:00:00Z", "99999-01-01", "1970-01-01T00:00:00.5Z",
            "2026-01-01T10:00:00+14:00", "en", "a=b", "<", "\"3\""),
        Arbitraries.strings().ofMaxLength(8), Arbitraries.doubles().map(String::valueOf),
        Arbitraries.longs().map(String::valueOf));
  }

  @Provide
  Arbitrary<List<String>> expressions() {
    Arbitrary<String> op = Arbitraries.of("=", ":", "<", "<=", ">", ">=", "==", "<>", "=<", "><", "<<", " < ", "");
    Arbitrary<String> exact = Combinators.combine(keys(), op, values()).as((k, o, v) -> k + o + v);
    Arbitrary<String> between = Combinators.combine(values(), op, keys(), op, values())
        .as((a, o1, k, o2, b) -> a + o1 + k + o2 + b);
    Arbitrary<String> expression = Arbitraries.oneOf(exact, between, exact.list().ofMaxSize(3).map(l -> String.join("", l)));
    return Arbitraries.oneOf(expression.list().ofMaxSize(6),
        expression.list().ofMinSize(MetadataFilter.MAX_KEYS - 2).ofMaxSize(MetadataFilter.MAX_KEYS + 4));
  }

  @Provide
  Arbitrary<List<String>> randomLists() {
    return Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(30),
        Arbitraries.strings().withChars("<>=:. -0123456789eExa").ofMaxLength(20)).list().ofMaxSize(5);
  }

  @Provide
  Arbitrary<Map<String, String>> metadata() {
    return Arbitraries.maps(keys(), values()).ofMaxSize(5);
  }
}
