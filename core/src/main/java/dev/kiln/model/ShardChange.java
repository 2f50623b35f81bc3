package dev.kiln.model;

import java.io.Serializable;
import java.util.Objects;

/**
 * Input of a shard writer that continues a base snapshot (changelog and incremental builds): a freshly
 * embedded chunk to add, a document id whose base chunks must go (deleted, or replaced by an upsert),
 * or a document id whose base chunks stay as they are (an incremental build's unchanged document).
 *
 * @param chunk the chunk to add, or {@code null}
 * @param docId the document the change is about
 * @param kind what to do
 * @param unchangedAt where a {@link Kind#KEEP} change's record was read (the writer resolves duplicate
 *     ids by it), else {@code null}
 */
public record ShardChange(EmbeddedChunk chunk, String docId, Kind kind, RecordPosition unchangedAt)
    implements Serializable {

  public enum Kind {
    /** Add {@link #chunk}; the document's base chunks go when its first fresh chunk arrives. */
    ADD,
    /** Remove the document's base chunks: it was upserted (its fresh chunks come separately). */
    REPLACE,
    /** Remove the document's base chunks: it was deleted (an id unknown to the base is counted). */
    DELETE,
    /** Keep the document's base chunks (an incremental build's unchanged document). */
    KEEP
  }

  public ShardChange {
    if ((chunk != null) != (kind == Kind.ADD)) {
      throw new IllegalArgumentException(kind + " change " + (chunk == null ? "without" : "with") + " a chunk");
    }
    if ((unchangedAt != null) != (kind == Kind.KEEP)) {
      throw new IllegalArgumentException(kind + " change " + (unchangedAt == null ? "without" : "with")
          + " a record position");
    }
  }

  public static ShardChange add(EmbeddedChunk chunk) {
    return new ShardChange(chunk, chunk.chunk().docId(), Kind.ADD, null);
  }

  /** The document's base chunks go: {@code deleted}, or replaced by an upsert. */
  public static ShardChange remove(String docId, boolean deleted) {
    return new ShardChange(null, docId, deleted ? Kind.DELETE : Kind.REPLACE, null);
  }

  /** The record at {@code at} holds the document as the base snapshot does: its base chunks stay if it wins. */
  public static ShardChange keep(String docId, RecordPosition at) {
    return new ShardChange(null, docId, Kind.KEEP, Objects.requireNonNull(at, "at"));
  }
}
