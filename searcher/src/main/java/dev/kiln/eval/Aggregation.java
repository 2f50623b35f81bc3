package dev.kiln.eval;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.kiln.config.ConfigException;
import java.util.Locale;

/**
 * How a document's chunk scores become the document's score. Judgments are per document while the
 * searcher ranks chunks.
 */
public enum Aggregation {
  /** The best chunk's score (MaxP): a document is as relevant as its most relevant passage. */
  MAX,
  /** The sum of the retrieved chunks' scores: rewards documents relevant in several places. */
  SUM;

  @JsonValue
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static Aggregation parse(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("unknown aggregation '" + value + "': use max or sum");
    }
  }
}
