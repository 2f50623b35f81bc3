package dev.kiln.operators;

import dev.kiln.model.RawRecord;
import java.io.Serializable;

/**
 * A record the job could not use: where it came from, why, and the start of its raw text.
 *
 * @param sourceUri the file
 * @param offset byte offset of the record in the file
 * @param reason why it was rejected
 * @param prefix up to 200 characters of the raw record
 */
public record QuarantinedRecord(String sourceUri, long offset, String reason, String prefix)
    implements Serializable {
  static final int PREFIX_CHARS = 200;

  static QuarantinedRecord of(RawRecord raw, String reason) {
    String p = raw.payload() == null ? "" : raw.payload();
    return new QuarantinedRecord(raw.sourceUri(), raw.offset(), reason,
        p.length() > PREFIX_CHARS ? p.substring(0, PREFIX_CHARS) : p);
  }
}
