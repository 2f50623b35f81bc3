package dev.kiln.operators;

import dev.kiln.model.Document;
import dev.kiln.model.RecordPosition;
import java.io.Serializable;

/**
 * A parsed document with the position of its record, so that duplicates can be resolved by a rule that
 * does not depend on which reader ran first.
 */
public record SourcedDocument(Document document, long offset) implements Serializable {

  /** Where the record was read. */
  public RecordPosition position() {
    return new RecordPosition(document.sourceUri(), offset);
  }
}
