package dev.kiln.search;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.kiln.config.ConfigException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How a query is matched against a snapshot. */
public enum SearchMode {
  /** Dense and BM25 candidates fused with reciprocal rank fusion. */
  HYBRID,
  /** Approximate nearest neighbours over the chunk embeddings only. */
  DENSE,
  /** Bag-of-words BM25 over the analysed chunk text only. */
  BM25;

  /** The lower-case name users type and reports print. */
  @JsonValue
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a mode name, ignoring case.
   *
   * @throws ConfigException naming the valid values when {@code value} is not one of them
   */
  @JsonCreator
  public static SearchMode parse(String value) {
    if (value != null) {
      for (SearchMode mode : values()) {
        if (mode.label().equalsIgnoreCase(value.trim())) {
          return mode;
        }
      }
    }
    throw new ConfigException("unknown search mode '" + value + "': valid modes are "
        + Arrays.stream(values()).map(SearchMode::label).collect(Collectors.joining(", ")));
  }
}
