package dev.kiln.operators;

import dev.kiln.model.Document;
import java.io.Serializable;

/**
 * A parsed document with the position of its record, so that duplicates can be resolved by a rule that
 * does not depend on which reader ran first.
 */
public record SourcedDocument(Document document, long offset) implements Serializable {
  /** Whether this record comes before {@code other} in (source URI, offset) order. */
  boolean precedes(SourcedDocument other) {
    int c = document.sourceUri().compareTo(other.document.sourceUri());
    return c < 0 || (c == 0 && offset < other.offset);
  }
}
