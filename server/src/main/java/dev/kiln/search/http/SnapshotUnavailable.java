package dev.kiln.search.http;

/**
 * No snapshot can be served: the one {@code CURRENT} names failed verification after it was opened
 * and no earlier one could be opened in its place. Answered {@code 503} with the reason.
 */
public final class SnapshotUnavailable extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SnapshotUnavailable(String message) {
    super(message);
  }
}
