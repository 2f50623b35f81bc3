package dev.kiln.model;

import java.io.Serializable;

/**
 * Input of a continuing docstore writer (a changelog or incremental build's): a fresh parent to add, a
 * document id whose base-snapshot parents must go, or (an incremental build's) a document id whose
 * base-snapshot parents stay while its fresh parents go, because the chunk shard kept the base's chunks
 * over the fresh record's (the parents' counterpart of {@link ShardChange}).
 *
 * @param parent a fresh parent, or {@code null}
 * @param removedDocId the document whose base parents go or stay ({@code null} with a fresh parent)
 * @param baseWins the base's parents of {@code docId} stay and its fresh ones go
 */
public record ParentChange(ParentChunk parent, String removedDocId, boolean baseWins) implements Serializable {

  public static ParentChange add(ParentChunk parent) {
    return new ParentChange(parent, null, false);
  }

  public static ParentChange remove(String docId) {
    return new ParentChange(null, docId, false);
  }

  /** The chunk shard kept the base's chunks of {@code docId}: its base parents stay, its fresh ones go. */
  public static ParentChange baseWins(String docId) {
    return new ParentChange(null, docId, true);
  }

  public String docId() {
    return parent != null ? parent.docId() : removedDocId;
  }
}
