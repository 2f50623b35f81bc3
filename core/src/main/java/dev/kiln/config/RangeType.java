package dev.kiln.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How the values of a range-indexed metadata key ({@code index.range-fields}) are read and indexed
 * as Lucene points. The manifest records each key's type, so the searcher reads filter bounds the way
 * the build read the values.
 */
public enum RangeType {
  /** Integers ({@code 3}, {@code -12}, {@code 3.0}), as 64-bit longs. */
  LONG("long"),
  /** Integers and decimals ({@code 3}, {@code 2.5}, {@code 1e3}), as doubles. */
  DOUBLE("double"),
  /**
   * ISO-8601 dates ({@code 2026-01-01}: its start, UTC) and date-times ({@code 2026-01-01T10:00:00Z},
   * with an offset, or without one read as UTC), as epoch milliseconds.
   */
  DATE("date");

  private final String label;

  RangeType(String label) {
    this.label = label;
  }

  /** The name used in configs and in {@code manifest.json}. */
  public String label() {
    return label;
  }

  @Override
  public String toString() {
    return label;
  }

  /** @throws ConfigException naming {@code index.range-fields} for an unknown type */
  public static RangeType parse(String key, String label) {
    for (RangeType t : values()) {
      if (label != null && t.label.equals(label.strip().toLowerCase(Locale.ROOT))) {
        return t;
      }
    }
    throw new ConfigException("index.range-fields." + key + " must be one of "
        + Arrays.stream(values()).map(RangeType::label).collect(Collectors.joining("|")) + ", was '" + label + "'");
  }
}
