package dev.kiln.publish;

import dev.kiln.snapshot.SnapshotException;

/** {@code CURRENT} no longer names the snapshot a publish started from: another writer got there first. */
public final class PublishConflictException extends SnapshotException {
  public PublishConflictException(String message) {
    super(message);
  }
}
