package dev.kiln.search.filter;

import dev.kiln.config.IndexConfig;
import dev.kiln.config.RangeType;
import dev.kiln.index.ShardSchema;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;

/**
 * Conditions on chunk metadata: exact matches on {@code meta.<key>} keyword fields, and ranges
 * ({@link RangeCondition}) on keys a snapshot indexed as points ({@code index.range-fields}).
 * Different keys must all match; several exact values of one key match any of them ({@code lang=en
 * lang=de}); several ranges of one key must all hold ({@code version>=3 version<5}); an exact and a
 * range condition on one key must both hold. Exact values are compared as written, case included,
 * because tenants and ids are opaque.
 *
 * <p>A filter with ranges is parsed once per request and {@link #bind bound} to each snapshot it runs
 * on: the snapshot's manifest says which keys are range-indexed and as which type. A range on any
 * other key is refused ({@link FilterException}), never silently matched against nothing.
 */
public final class MetadataFilter {
  /**
   * Most distinct keys in one filter. Each key is one clause of the query, and Lucene refuses a query
   * of more than 1,024 clauses (including the query's own) at search time; real filters name a few
   * keys, so a longer one is refused here as bad input, before any search.
   */
  public static final int MAX_KEYS = 64;

  private static final MetadataFilter NONE = new MetadataFilter(Collections.emptySortedMap(),
      Collections.emptySortedMap(), null);

  private final Map<String, Set<String>> conditions;
  private final Map<String, RangeCondition> ranges;
  /** The ranges bound to a snapshot's types, or null while unbound (or without ranges). */
  private final Map<String, RangeCondition.Interval> intervals;

  private MetadataFilter(Map<String, Set<String>> conditions, Map<String, RangeCondition> ranges,
      Map<String, RangeCondition.Interval> intervals) {
    this.conditions = conditions;
    this.ranges = ranges;
    this.intervals = intervals;
  }

  public static MetadataFilter none() {
    return NONE;
  }

  /** An exact-match filter from a key-to-values map; an empty map filters nothing. */
  public static MetadataFilter of(Map<String, ? extends Iterable<String>> conditions) {
    return of(conditions, Map.of());
  }

  private static MetadataFilter of(Map<String, ? extends Iterable<String>> conditions,
      Map<String, RangeCondition> ranges) {
    Map<String, Set<String>> copy = new TreeMap<>();
    conditions.forEach((key, values) -> {
      for (String v : values) {
        copy.computeIfAbsent(checkKey(key), k -> new LinkedHashSet<>()).add(v);
      }
    });
    Set<String> keys = new HashSet<>(copy.keySet());
    keys.addAll(ranges.keySet());
    if (keys.size() > MAX_KEYS) {
      throw new FilterException("", " names " + keys.size() + " distinct keys; at most " + MAX_KEYS
          + " are allowed (several values of one key are fine: lang=en lang=de)");
    }
    if (copy.isEmpty() && ranges.isEmpty()) {
      return NONE;
    }
    return new MetadataFilter(Collections.unmodifiableMap(copy), Collections.unmodifiableMap(new TreeMap<>(ranges)),
        null);
  }

  /**
   * Parses {@code key=value} or {@code key:value} exact matches (the CLI uses {@code =}, URLs often
   * {@code :}; the first separator splits, so values may contain either character) and range
   * conditions {@code key>=value}, {@code key>value}, {@code key<=value}, {@code key<value},
   * {@code low<=key<high} (an expression whose first operator is {@code <} or {@code >}).
   *
   * @throws FilterException naming the malformed expression
   */
  public static MetadataFilter parse(List<String> expressions) {
    if (expressions == null || expressions.isEmpty()) {
      return NONE;
    }
    Map<String, List<String>> conditions = new TreeMap<>();
    Map<String, RangeCondition> ranges = new TreeMap<>();
    for (String e : expressions) {
      if (RangeCondition.isRange(e)) {
        RangeCondition r = RangeCondition.parse(e);
        ranges.merge(r.key(), r, RangeCondition::and);
        continue;
      }
      int eq = e.indexOf('=');
      int colon = e.indexOf(':');
      int sep = eq < 0 ? colon : colon < 0 ? eq : Math.min(eq, colon);
      if (sep <= 0 || sep == e.length() - 1) {
        throw new FilterException("malformed ", " '" + e + "': expected KEY=VALUE or KEY>=VALUE (>, <=, <)");
      }
      conditions.computeIfAbsent(e.substring(0, sep).strip(), k -> new ArrayList<>())
          .add(e.substring(sep + 1));
    }
    return of(conditions, ranges);
  }

  static String checkKey(String key) {
    if (key == null || key.isBlank() || !key.matches(IndexConfig.METADATA_KEY)) {
      throw new FilterException("malformed ", " key '" + key
          + "': use letters, digits, '_', '-' or '.'");
    }
    return key;
  }

  public boolean isEmpty() {
    return conditions.isEmpty() && ranges.isEmpty();
  }

  /** The exact-match conditions: key → the values any of which passes. */
  public Map<String, Set<String>> conditions() {
    return conditions;
  }

  /** The range conditions by key. */
  public Map<String, RangeCondition> ranges() {
    return ranges;
  }

  /** This filter's ranges with other exact-match conditions (what an API key's binding narrows). */
  public MetadataFilter withConditions(Map<String, ? extends Iterable<String>> exact) {
    return of(exact, ranges);
  }

  /**
   * This filter for one snapshot: each range bound to the type its key was indexed as.
   *
   * @param types the snapshot's range-indexed keys ({@code Manifest#rangeTypes()})
   * @param snapshot names the snapshot in the error
   * @throws FilterException for a range on a key the snapshot did not index for ranges, or a bound
   *     that is not a value of the key's type
   */
  public MetadataFilter bind(SortedMap<String, RangeType> types, String snapshot) {
    if (ranges.isEmpty()) {
      return this;
    }
    Map<String, RangeCondition.Interval> bound = new TreeMap<>();
    for (RangeCondition r : ranges.values()) {
      RangeType type = types.get(r.key());
      if (type == null) {
        throw new FilterException("", " " + r + ": '" + r.key() + "' is not range-indexed in snapshot " + snapshot
            + (types.isEmpty() ? " (it has no range fields)" : " (range fields: " + String.join(", ", types.keySet()) + ")")
            + "; range filters need the key in index.range-fields at build time, exact KEY=VALUE works on every key");
      }
      bound.put(r.key(), r.bind(type));
    }
    return new MetadataFilter(conditions, ranges, Collections.unmodifiableMap(bound));
  }

  private Map<String, RangeCondition.Interval> intervals() {
    if (!ranges.isEmpty() && intervals == null) {
      throw new IllegalStateException("range filter " + this + " is not bound to a snapshot: bind(types) it first");
    }
    return intervals == null ? Map.of() : intervals;
  }

  /** Whether a chunk with this metadata passes; used to check results, not to search. */
  public boolean matches(Map<String, String> metadata) {
    for (Map.Entry<String, Set<String>> c : conditions.entrySet()) {
      if (!c.getValue().contains(metadata.get(c.getKey()))) {
        return false;
      }
    }
    for (RangeCondition.Interval i : intervals().values()) {
      if (!i.matches(metadata.get(i.key()))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The Lucene filter, or {@code null} when empty. Non-scoring: it only restricts candidates.
   *
   * @throws IllegalStateException when the filter has ranges and is not {@link #bind bound}
   */
  public Query toQuery() {
    if (isEmpty()) {
      return null;
    }
    BooleanQuery.Builder all = new BooleanQuery.Builder();
    for (Map.Entry<String, Set<String>> c : conditions.entrySet()) {
      String field = ShardSchema.META_PREFIX + c.getKey();
      Query one = c.getValue().size() == 1
          ? new TermQuery(new Term(field, c.getValue().iterator().next()))
          : new TermInSetQuery(field, c.getValue().stream().map(BytesRef::new).toList());
      all.add(one, BooleanClause.Occur.FILTER);
    }
    for (RangeCondition.Interval i : intervals().values()) {
      all.add(i.toQuery(), BooleanClause.Occur.FILTER);
    }
    return all.build();
  }

  /** {@code key=value,…,key>=value,…} for logs and responses. */
  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    conditions.forEach((k, vs) -> vs.forEach(v -> parts.add(k + "=" + v)));
    ranges.values().forEach(r -> parts.add(r.toString()));
    return String.join(",", parts);
  }

  /** Equal conditions and ranges; whether either is bound to a snapshot does not count. */
  @Override
  public boolean equals(Object o) {
    return o instanceof MetadataFilter f && f.conditions.equals(conditions) && f.ranges.equals(ranges);
  }

  @Override
  public int hashCode() {
    return conditions.hashCode() * 31 + ranges.hashCode();
  }
}
