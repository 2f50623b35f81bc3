package dev.kiln.model;

import java.io.Serializable;

/**
 * Input of a changelog build's shard writer: a freshly embedded chunk to add, or a document id whose
 * base-snapshot chunks must go (deleted, or replaced by an upsert).
 *
 * @param chunk the chunk to add, or {@code null}
 * @param removedDocId the document to remove from the base, or {@code null}
 * @param deleted whether {@code removedDocId} was deleted (as opposed to upserted): only deletes of
 *     ids unknown to the base are counted
 */
public record ShardChange(EmbeddedChunk chunk, String removedDocId, boolean deleted) implements Serializable {

  public static ShardChange add(EmbeddedChunk chunk) {
    return new ShardChange(chunk, null, false);
  }

  public static ShardChange remove(String docId, boolean deleted) {
    return new ShardChange(null, docId, deleted);
  }

  public String docId() {
    return chunk != null ? chunk.chunk().docId() : removedDocId;
  }
}
