package dev.kiln.operators;

import dev.kiln.model.Document;
import dev.kiln.model.RecordPosition;
import java.io.Serializable;

/**
 * A parsed document with the position of its record, so that duplicates can be resolved by a rule that
 * does not depend on which reader ran first.
 *
 * @param unchanged an incremental build found the document as it is in the base snapshot: only its
 *     id and source travel on (the shard writer keeps its base chunks), not its text or vector
 */
public record SourcedDocument(Document document, long offset, boolean unchanged) implements Serializable {

  public SourcedDocument(Document document, long offset) {
    this(document, offset, false);
  }

  /** The light stand-in for a document unchanged since the base snapshot. */
  static SourcedDocument unchanged(Document document, long offset) {
    return new SourcedDocument(new Document(document.id(), "", "", null, document.sourceUri(),
        document.contentType(), null), offset, true);
  }

  /** Where the record was read. */
  public RecordPosition position() {
    return new RecordPosition(document.sourceUri(), offset);
  }

  /** Whether this record comes before {@code other} in (source URI, offset) order. */
  boolean precedes(SourcedDocument other) {
    return position().precedes(other.position());
  }
}
