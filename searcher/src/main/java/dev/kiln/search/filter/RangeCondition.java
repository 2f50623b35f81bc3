package dev.kiln.search.filter;

import dev.kiln.config.IndexConfig;
import dev.kiln.config.RangeType;
import dev.kiln.index.RangeValues;
import dev.kiln.index.ShardSchema;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;

/**
 * Range conditions on one metadata key, as written: {@code version>=3}, {@code modified<2026-01-01},
 * or both bounds at once, {@code 3<=version<5}. Several are ANDed. They mean something only against a
 * snapshot, whose manifest says how the key was indexed ({@link RangeType}): {@link #bind} turns them
 * into an {@link Interval} of the key's point values.
 *
 * <p>Bounds are read as the build read values ({@link RangeValues}). On a {@code long} key a decimal
 * bound is rounded inwards ({@code version>2.5} is {@code version>=3}); on a {@code double} key a strict
 * bound excludes exactly its value; on a {@code date} key a date without a time stands for that whole
 * day in UTC ({@code modified<=2026-01-01} takes all of January 1st, {@code modified>2026-01-01} starts
 * on the 2nd) and a date-time is exact to the millisecond.
 */
public final class RangeCondition {
  /** A comparison, as written after the key. */
  public enum Op {
    GT(">"), GE(">="), LT("<"), LE("<=");

    final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }

    static Op of(String symbol) {
      for (Op op : values()) {
        if (op.symbol.equals(symbol)) {
          return op;
        }
      }
      throw new IllegalArgumentException(symbol);
    }

    /** The same comparison with its sides swapped: {@code 3<=version} is {@code version>=3}. */
    Op mirrored() {
      return switch (this) {
        case GT -> LT;
        case GE -> LE;
        case LT -> GT;
        case LE -> GE;
      };
    }

    boolean lower() {
      return this == GT || this == GE;
    }
  }

  /** One bound: {@code key op value}. */
  public record Bound(Op op, String value) {
    @Override
    public String toString() {
      return op.symbol + value;
    }
  }

  private static final Pattern OPERATOR = Pattern.compile("<=|>=|<|>");

  private final String key;
  private final List<Bound> bounds;

  RangeCondition(String key, List<Bound> bounds) {
    this.key = key;
    this.bounds = List.copyOf(bounds);
  }

  public String key() {
    return key;
  }

  public List<Bound> bounds() {
    return bounds;
  }

  /** This condition and {@code other}'s bounds (same key): both must hold. */
  RangeCondition and(RangeCondition other) {
    List<Bound> all = new ArrayList<>(bounds);
    all.addAll(other.bounds);
    return new RangeCondition(key, all);
  }

  /**
   * Whether an expression is a range, not an exact match: its first operator is {@code <} or
   * {@code >} ({@code version>=3}), or it is the two-bound form whose outer parts are numbers or
   * dates ({@code 2026-01-01T10:00:00Z<=modified<2026-02-01}, where a {@code :} comes first). Anything
   * else is {@code key=value} or {@code key:value}, so {@code title=a<b} stays an exact match.
   */
  static boolean isRange(String expression) {
    for (int i = 0; i < expression.length(); i++) {
      char c = expression.charAt(i);
      if (c == '<' || c == '>') {
        return true;
      }
      if (c == '=' || c == ':') {
        break;
      }
    }
    Matcher m = BOTH_BOUNDS.matcher(expression.strip());
    return m.matches() && isValue(m.group(1)) && isValue(m.group(3));
  }

  /** {@code low OP key OP high}, the outer parts free of operators. */
  private static final Pattern BOTH_BOUNDS = Pattern.compile("([^<>]+?)\\s*(?:<=|>=|<|>)\\s*("
      + IndexConfig.METADATA_KEY + ")\\s*(?:<=|>=|<|>)\\s*([^<>]+)");

  private static boolean isValue(String text) {
    return RangeValues.parseDecimal(text) != null || RangeValues.parseDate(text) != null;
  }

  /**
   * Parses {@code key OP value} or {@code value OP key OP value} (both operators pointing the same way).
   *
   * @throws FilterException naming the expression
   */
  static RangeCondition parse(String expression) {
    List<String> parts = new ArrayList<>();
    List<Op> ops = new ArrayList<>();
    Matcher m = OPERATOR.matcher(expression);
    int start = 0;
    while (m.find()) {
      parts.add(expression.substring(start, m.start()).strip());
      ops.add(Op.of(m.group()));
      start = m.end();
    }
    parts.add(expression.substring(start).strip());
    if (parts.stream().anyMatch(String::isEmpty) || ops.size() > 2) {
      throw malformed(expression);
    }
    if (ops.size() == 1) {
      return new RangeCondition(MetadataFilter.checkKey(parts.get(0)), List.of(new Bound(ops.get(0), parts.get(1))));
    }
    Op left = ops.get(0).mirrored();
    Op right = ops.get(1);
    if (left.lower() == right.lower()) {
      throw malformed(expression);
    }
    return new RangeCondition(MetadataFilter.checkKey(parts.get(1)),
        List.of(new Bound(left, parts.get(0)), new Bound(right, parts.get(2))));
  }

  private static FilterException malformed(String expression) {
    return new FilterException("malformed ", " '" + expression + "': expected KEY>=VALUE, KEY>VALUE, KEY<=VALUE,"
        + " KEY<VALUE or LOW<=KEY<HIGH");
  }

  /**
   * The interval of point values these bounds allow on a key indexed as {@code type}.
   *
   * @throws FilterException when a bound is not a value of that type
   */
  Interval bind(RangeType type) {
    return type == RangeType.DOUBLE ? bindDouble() : bindLong(type);
  }

  private Interval bindLong(RangeType type) {
    long lo = Long.MIN_VALUE;
    long hi = Long.MAX_VALUE;
    boolean empty = false;
    for (Bound b : bounds) {
      long[] edge = type == RangeType.DATE ? dateEdges(b) : integerEdges(b);
      if (edge == null) {
        empty = true; // a bound no 64-bit value meets (beyond the range of longs)
        continue;
      }
      if (b.op().lower()) {
        lo = Math.max(lo, edge[0]);
      } else {
        hi = Math.min(hi, edge[0]);
      }
    }
    return new Interval(key, type, empty || lo > hi, lo, hi, 0, 0);
  }

  /** A bound on a long key as the inclusive edge it means; null when no long satisfies it. */
  private long[] integerEdges(Bound b) {
    BigDecimal v = RangeValues.parseDecimal(b.value());
    if (v == null) {
      throw notA(b, "a number", RangeType.LONG);
    }
    BigDecimal edge = switch (b.op()) {
      case GE -> v.setScale(0, RoundingMode.CEILING);
      case GT -> v.setScale(0, RoundingMode.FLOOR).add(BigDecimal.ONE);
      case LE -> v.setScale(0, RoundingMode.FLOOR);
      case LT -> v.setScale(0, RoundingMode.CEILING).subtract(BigDecimal.ONE);
    };
    BigDecimal min = BigDecimal.valueOf(Long.MIN_VALUE);
    BigDecimal max = BigDecimal.valueOf(Long.MAX_VALUE);
    if (b.op().lower()) {
      return edge.compareTo(max) > 0 ? null : new long[] {edge.max(min).longValueExact()};
    }
    return edge.compareTo(min) < 0 ? null : new long[] {edge.min(max).longValueExact()};
  }

  private long[] dateEdges(Bound b) {
    Long t = RangeValues.parseDate(b.value());
    if (t == null) {
      throw notA(b, "an ISO date (2026-01-01) or date-time (2026-01-01T10:00:00Z)", RangeType.DATE);
    }
    boolean day = RangeValues.isDateOnly(b.value());
    // A date alone is the whole day: [start of the day, start of the next day).
    long endExclusive = day ? RangeValues.startOfNextDay(b.value()) : t + 1;
    return new long[] {switch (b.op()) {
      case GE -> t;
      case GT -> endExclusive;
      case LE -> endExclusive - 1;
      case LT -> t - 1;
    }};
  }

  private Interval bindDouble() {
    double lo = Double.NEGATIVE_INFINITY;
    double hi = Double.POSITIVE_INFINITY;
    for (Bound b : bounds) {
      BigDecimal v = RangeValues.parseDecimal(b.value());
      if (v == null) {
        throw notA(b, "a number", RangeType.DOUBLE);
      }
      double d = v.doubleValue();
      switch (b.op()) {
        case GE -> lo = Math.max(lo, d);
        case GT -> lo = Math.max(lo, Math.nextUp(d));
        case LE -> hi = Math.min(hi, d);
        case LT -> hi = Math.min(hi, Math.nextDown(d));
      }
    }
    return new Interval(key, RangeType.DOUBLE, !(lo <= hi), 0, 0, lo, hi);
  }

  private FilterException notA(Bound b, String what, RangeType type) {
    return new FilterException("", " " + key + b + ": '" + b.value() + "' is not " + what + " (" + key
        + " is range-indexed as " + type.label() + ")");
  }

  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    bounds.forEach(b -> parts.add(key + b));
    return String.join(",", parts);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RangeCondition r && r.key.equals(key) && r.bounds.equals(bounds);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, bounds);
  }

  /**
   * The values a key's range conditions allow in one snapshot, inclusive at both ends: {@code lo..hi}
   * for long and date keys (epoch milliseconds), {@code dlo..dhi} for double keys.
   */
  public record Interval(String key, RangeType type, boolean empty, long lo, long hi, double dlo, double dhi) {
    /** The point query: matches the chunks whose value lies in the interval (none when it is empty). */
    public Query toQuery() {
      String field = ShardSchema.RANGE_PREFIX + key;
      if (empty) {
        return new MatchNoDocsQuery("empty range on " + key);
      }
      return type == RangeType.DOUBLE ? DoublePoint.newRangeQuery(field, dlo, dhi)
          : LongPoint.newRangeQuery(field, lo, hi);
    }

    /** Whether a chunk whose metadata value is {@code value} (null: none) passes; for checking results. */
    public boolean matches(String value) {
      if (empty || value == null) {
        return false;
      }
      Number v = RangeValues.parse(type, value);
      if (v == null) {
        return false;
      }
      return type == RangeType.DOUBLE ? v.doubleValue() >= dlo && v.doubleValue() <= dhi
          : v.longValue() >= lo && v.longValue() <= hi;
    }
  }
}
