package dev.kiln.client;

/**
 * A search Kiln refused or could not answer. {@link #status()} is the HTTP status for a {@code kiln serve}
 * backend (400: the request is wrong and retrying will not help; 503: try again), and 0 for an embedded
 * searcher or a request that never got an answer.
 */
public final class KilnClientException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;

  public KilnClientException(String message, int status, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  public int status() {
    return status;
  }
}
