package dev.kiln.model;

import java.io.Serializable;

/**
 * Where a corpus record was read: its file and the record's offset in it (a line's byte offset; 0 for a
 * whole file; a Parquet row's number in the file). Every record of a file has its own. Records with the same document id are resolved by this position
 * alone (the first wins), so the outcome never depends on which reader ran first.
 *
 * @param sourceUri the file the record came from
 * @param offset the record's offset in that file
 */
public record RecordPosition(String sourceUri, long offset) implements Serializable {

  public RecordPosition {
    sourceUri = sourceUri == null ? "" : sourceUri;
  }

  /** Whether this record comes before {@code other} in (source URI, offset) order. */
  public boolean precedes(RecordPosition other) {
    int c = sourceUri.compareTo(other.sourceUri);
    return c < 0 || (c == 0 && offset < other.offset);
  }

  @Override
  public String toString() {
    return sourceUri + " @ " + offset;
  }
}
