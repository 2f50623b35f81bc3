package dev.kiln.model;

import java.io.Serializable;

/**
 * One parsed changelog record: an upsert carrying the document's new content, or a delete of an id,
 * with the (partition, offset) it was read at.
 *
 * @param document the new document of an upsert; {@code null} for a delete
 */
public record ChangeOp(String id, Kind kind, Document document, int partition, long offset) implements Serializable {

  public enum Kind { UPSERT, DELETE }

  public static ChangeOp upsert(Document document, int partition, long offset) {
    return new ChangeOp(document.id(), Kind.UPSERT, document, partition, offset);
  }

  public static ChangeOp delete(String id, int partition, long offset) {
    return new ChangeOp(id, Kind.DELETE, null, partition, offset);
  }

  /**
   * Whether this op supersedes {@code other} on the same id: the higher (partition, offset) wins.
   * Producers key records by id, so all ops of one id are in one partition and this is log order;
   * across partitions the order is still total, so every build resolves the same way.
   */
  public boolean supersedes(ChangeOp other) {
    return partition != other.partition ? partition > other.partition : offset > other.offset;
  }
}
