package dev.kiln.model;

import java.io.Serializable;

/**
 * Input of a changelog build's docstore writer: a fresh parent to add, or a document id whose
 * base-snapshot parents must go (the parents' counterpart of {@link ShardChange}).
 */
public record ParentChange(ParentChunk parent, String removedDocId) implements Serializable {

  public static ParentChange add(ParentChunk parent) {
    return new ParentChange(parent, null);
  }

  public static ParentChange remove(String docId) {
    return new ParentChange(null, docId);
  }

  public String docId() {
    return parent != null ? parent.docId() : removedDocId;
  }
}
