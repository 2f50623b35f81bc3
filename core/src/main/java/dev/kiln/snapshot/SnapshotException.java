package dev.kiln.snapshot;

/** A snapshot cannot be trusted or found; the message says which and why. */
public class SnapshotException extends RuntimeException {
  public SnapshotException(String message) {
    super(message);
  }

  public SnapshotException(String message, Throwable cause) {
    super(message, cause);
  }
}
