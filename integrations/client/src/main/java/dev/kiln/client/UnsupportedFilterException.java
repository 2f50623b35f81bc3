package dev.kiln.client;

/**
 * A framework filter that Kiln cannot evaluate (a negation, an OR across keys, a substring match). It is
 * refused before any search rather than dropped, because a dropped filter returns chunks the caller
 * meant to exclude (another tenant's, say).
 */
public final class UnsupportedFilterException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public UnsupportedFilterException(String message) {
    super(message);
  }
}
