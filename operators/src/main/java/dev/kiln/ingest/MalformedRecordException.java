package dev.kiln.ingest;

/** A record that cannot become a {@link dev.kiln.model.Document}; the message is the quarantine reason. */
public class MalformedRecordException extends Exception {
  public MalformedRecordException(String reason) {
    super(reason);
  }
}
