package dev.kiln.client;

import dev.kiln.config.IndexConfig;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A metadata filter in the form Kiln evaluates: per key, a set of exact values any of which passes
 * (keys ANDed), and range conditions on range-indexed keys, all ANDed. The framework adapters translate
 * their own filter trees into this; anything that does not fit (NOT, OR across keys or with ranges) is
 * refused with {@link UnsupportedFilterException}.
 *
 * <p>Values are compared as text, the way Kiln stores metadata: {@code 2020} matches the metadata value
 * {@code "2020"}, {@code 2020.0} does not. Range bounds are interpreted by the key's indexed type.
 *
 * <p>Immutable. An AND of two exact conditions on one key keeps the values both allow; when none is
 * left the filter {@link #matchesNothing() matches nothing}, and the retrievers return no content
 * without asking Kiln.
 */
public final class KilnFilter {
  private static final KilnFilter NONE = new KilnFilter(Map.of(), List.of(), false);
  private static final KilnFilter NOTHING = new KilnFilter(Map.of(), List.of(), true);

  /** One range condition, {@code key op value}. */
  public record Range(String key, RangeOp op, String value) {
    public Range {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(op, "op");
      Objects.requireNonNull(value, "value");
    }

    /** Kiln's expression, {@code year>=2020}. */
    public String expression() {
      return key + op.symbol() + value;
    }
  }

  private final Map<String, Set<String>> exact;
  private final List<Range> ranges;
  private final boolean nothing;

  private KilnFilter(Map<String, Set<String>> exact, List<Range> ranges, boolean nothing) {
    this.exact = exact;
    this.ranges = ranges;
    this.nothing = nothing;
  }

  /** The filter that passes everything. */
  public static KilnFilter none() {
    return NONE;
  }

  /** The filter that passes nothing (an AND of two different exact values of one key). */
  public static KilnFilter nothing() {
    return NOTHING;
  }

  /** {@code key} equals {@code value} (compared as text). */
  public static KilnFilter eq(String key, Object value) {
    return in(key, List.of(value));
  }

  /** {@code key} equals one of {@code values}. */
  public static KilnFilter in(String key, Collection<?> values) {
    checkKey(key);
    if (values == null || values.isEmpty()) {
      throw new UnsupportedFilterException("filter on '" + key + "': an IN needs at least one value");
    }
    Set<String> texts = new LinkedHashSet<>();
    for (Object v : values) {
      texts.add(text(key, v));
    }
    return new KilnFilter(Map.of(key, Collections.unmodifiableSet(texts)), List.of(), false);
  }

  /** {@code key op value}, on a key the snapshot indexed for ranges. */
  public static KilnFilter range(String key, RangeOp op, Object value) {
    checkKey(key);
    return new KilnFilter(Map.of(), List.of(new Range(key, op, text(key, value))), false);
  }

  /** Both filters hold. */
  public KilnFilter and(KilnFilter other) {
    if (nothing || other.nothing) {
      return NOTHING;
    }
    Map<String, Set<String>> merged = new LinkedHashMap<>(exact);
    for (Map.Entry<String, Set<String>> e : other.exact.entrySet()) {
      Set<String> mine = merged.get(e.getKey());
      if (mine == null) {
        merged.put(e.getKey(), e.getValue());
        continue;
      }
      Set<String> both = new LinkedHashSet<>(mine);
      both.retainAll(e.getValue());
      if (both.isEmpty()) {
        return NOTHING;
      }
      merged.put(e.getKey(), Collections.unmodifiableSet(both));
    }
    List<Range> allRanges = new ArrayList<>(ranges);
    allRanges.addAll(other.ranges);
    return new KilnFilter(Collections.unmodifiableMap(merged), List.copyOf(allRanges), false);
  }

  /**
   * Either filter holds. Kiln has OR only among the exact values of one key, so both sides must be
   * exact conditions on the same single key ({@code lang = en OR lang = de}); anything else is refused.
   */
  public KilnFilter or(KilnFilter other) {
    if (nothing) {
      return other;
    }
    if (other.nothing) {
      return this;
    }
    if (isEmpty() || other.isEmpty()) {
      return NONE;
    }
    if (!ranges.isEmpty() || !other.ranges.isEmpty() || exact.size() != 1 || !exact.keySet().equals(other.exact.keySet())) {
      throw new UnsupportedFilterException("Kiln cannot evaluate OR of " + this + " and " + other
          + ": an OR must join exact values of one key (lang = en OR lang = de); use one query per branch");
    }
    String key = exact.keySet().iterator().next();
    Set<String> union = new LinkedHashSet<>(exact.get(key));
    union.addAll(other.exact.get(key));
    return new KilnFilter(Map.of(key, Collections.unmodifiableSet(union)), List.of(), false);
  }

  public boolean isEmpty() {
    return !nothing && exact.isEmpty() && ranges.isEmpty();
  }

  public boolean matchesNothing() {
    return nothing;
  }

  /** Key → the exact values any of which passes, in the order given. */
  public Map<String, Set<String>> exact() {
    return exact;
  }

  public List<Range> ranges() {
    return ranges;
  }

  /** The filter as Kiln's expressions ({@code lang=en}, {@code year>=2020}), as {@code kiln search --filter} takes them. */
  public List<String> expressions() {
    List<String> out = new ArrayList<>();
    exact.forEach((key, values) -> values.forEach(v -> out.add(key + "=" + v)));
    ranges.forEach(r -> out.add(r.expression()));
    return out;
  }

  @Override
  public String toString() {
    return nothing ? "(nothing)" : expressions().isEmpty() ? "(none)" : String.join(" AND ", expressions());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KilnFilter f && f.nothing == nothing && f.exact.equals(exact) && f.ranges.equals(ranges);
  }

  @Override
  public int hashCode() {
    return Objects.hash(exact, ranges, nothing);
  }

  /** Kiln's metadata keys: what a build may index. */
  private static void checkKey(String key) {
    if (key == null || !key.matches(IndexConfig.METADATA_KEY)) {
      throw new UnsupportedFilterException("filter key '" + key + "' is not a Kiln metadata key: use letters,"
          + " digits, '_', '-' or '.'");
    }
  }

  private static String text(String key, Object value) {
    if (value == null) {
      throw new UnsupportedFilterException("filter on '" + key + "': a null value cannot be compared");
    }
    if (value instanceof Collection<?> || value.getClass().isArray()) {
      throw new UnsupportedFilterException("filter on '" + key + "': compare with one value, not " + value);
    }
    return value.toString();
  }
}
