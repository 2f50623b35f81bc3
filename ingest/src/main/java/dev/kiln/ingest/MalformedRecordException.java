package dev.kiln.ingest;

/**
 * A record that cannot become a {@link dev.kiln.model.Document}: {@link #reason()} is the stable
 * {@link QuarantineReason} code, the message says what exactly was wrong.
 */
public class MalformedRecordException extends Exception {
  private final String reason;

  public MalformedRecordException(String reason, String detail) {
    super(detail);
    this.reason = reason;
  }

  public String reason() {
    return reason;
  }
}
