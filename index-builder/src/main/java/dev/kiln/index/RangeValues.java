package dev.kiln.index;

import dev.kiln.config.RangeType;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.TemporalAccessor;
import java.util.Map;
import java.util.SortedMap;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.document.LongPoint;

/**
 * The range side of metadata: how a value of a range-indexed key ({@code index.range-fields}) is read
 * as its {@link RangeType} and indexed as a one-dimensional Lucene point under {@link
 * ShardSchema#RANGE_PREFIX}. The build and the searcher read values with these same rules, so a
 * filter bound means what the indexed values mean.
 *
 * <p>Rules: {@code long} takes integers (a decimal point is fine when nothing follows it but zeros);
 * {@code double} takes any decimal number (no NaN, infinities or hexadecimal); {@code date} takes an
 * ISO-8601 date ({@code 2026-01-01}, the start of that day in UTC) or date-time ({@code
 * 2026-01-01T10:00:00Z}, with an offset or zone, or without one read as UTC; a space may stand for the
 * {@code T}), as epoch milliseconds. Surrounding blanks are ignored. A value that does not parse is not
 * indexed as a point: the chunk keeps its exact-match field, and no range matches it.
 */
public final class RangeValues {
  private final SortedMap<String, RangeType> types;
  private long rejected;

  /** @param types the range-indexed keys and their types ({@code IndexConfig#rangeTypes()}) */
  public RangeValues(SortedMap<String, RangeType> types) {
    this.types = types;
  }

  /**
   * Adds a point for every range-indexed key of {@code metadata} whose value parses; counts the
   * others ({@link #rejected()}).
   */
  public void addTo(Document doc, Map<String, String> metadata) {
    for (Map.Entry<String, RangeType> t : types.entrySet()) {
      String value = metadata.get(t.getKey());
      if (value == null) {
        continue;
      }
      String field = ShardSchema.RANGE_PREFIX + t.getKey();
      if (t.getValue() == RangeType.DOUBLE) {
        Double d = parseDouble(value);
        if (d != null) {
          doc.add(new DoublePoint(field, d));
          continue;
        }
      } else {
        Long l = t.getValue() == RangeType.LONG ? parseLong(value) : parseDate(value);
        if (l != null) {
          doc.add(new LongPoint(field, l));
          continue;
        }
      }
      rejected++;
    }
  }

  /** Values of range-indexed keys that did not parse as their type, so were not indexed as points. */
  public long rejected() {
    return rejected;
  }

  /** A value as its type's sortable number: a {@code Long} (long, date) or {@code Double}; null if it does not parse. */
  public static Number parse(RangeType type, String value) {
    return switch (type) {
      case LONG -> parseLong(value);
      case DOUBLE -> parseDouble(value);
      case DATE -> parseDate(value);
    };
  }

  /** A decimal number, exactly; null when {@code value} is not one. */
  public static BigDecimal parseDecimal(String value) {
    String s = value.strip();
    // BigDecimal also reads exponents ("1e3"), which are fine, but nothing else: no NaN, Infinity, hex, or suffixes.
    if (s.isEmpty() || s.length() > 64 || !s.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d{1,4})?")) {
      return null;
    }
    try {
      return new BigDecimal(s);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  static Long parseLong(String value) {
    BigDecimal d = parseDecimal(value);
    if (d == null) {
      return null;
    }
    try {
      return d.longValueExact();
    } catch (ArithmeticException e) {
      return null; // a fraction, or beyond 64 bits
    }
  }

  static Double parseDouble(String value) {
    BigDecimal d = parseDecimal(value);
    if (d == null) {
      return null;
    }
    double v = d.doubleValue();
    return Double.isFinite(v) ? v : null;
  }

  /** An ISO date or date-time as epoch milliseconds UTC; null when it is neither. */
  public static Long parseDate(String value) {
    String s = value.strip();
    if (s.length() > 10 && s.charAt(10) == ' ') {
      s = s.substring(0, 10) + 'T' + s.substring(11);
    }
    try {
      if (s.length() == 10) {
        return LocalDate.parse(s, DateTimeFormatter.ISO_LOCAL_DATE).atStartOfDay(ZoneOffset.UTC).toInstant()
            .toEpochMilli();
      }
      TemporalAccessor t = DateTimeFormatter.ISO_DATE_TIME.parseBest(s, ZonedDateTime::from, LocalDateTime::from);
      return t instanceof ZonedDateTime z ? z.toInstant().toEpochMilli()
          : ((LocalDateTime) t).atOffset(ZoneOffset.UTC).toInstant().toEpochMilli();
    } catch (DateTimeParseException | ArithmeticException e) {
      return null;
    }
  }

  /** Whether {@code value} is a date without a time of day ({@code 2026-01-01}): a bound on it means the whole day. */
  public static boolean isDateOnly(String value) {
    String s = value.strip();
    if (s.length() != 10) {
      return false;
    }
    try {
      LocalDate.parse(s, DateTimeFormatter.ISO_LOCAL_DATE);
      return true;
    } catch (DateTimeParseException e) {
      return false;
    }
  }

  /** The epoch milliseconds of the start of the day after {@code date} (an ISO date), UTC. */
  public static long startOfNextDay(String date) {
    return LocalDate.parse(date.strip(), DateTimeFormatter.ISO_LOCAL_DATE).plusDays(1).atStartOfDay(ZoneOffset.UTC)
        .toInstant().toEpochMilli();
  }
}
