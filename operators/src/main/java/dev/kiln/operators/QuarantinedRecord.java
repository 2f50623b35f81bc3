package dev.kiln.operators;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.kiln.model.RawRecord;
import java.io.Serializable;

/**
 * A record the job could not use, as written to the quarantine output (one JSON object per line).
 *
 * @param sourceUri the file
 * @param offset byte offset of the record in the file (a line's start; 0 for whole files; the row
 *     group's offset for Parquet)
 * @param reason the stable reason code ({@link dev.kiln.ingest.QuarantineReason})
 * @param detail what exactly was wrong
 * @param prefix up to 200 characters of the raw record
 */
public record QuarantinedRecord(
    @JsonProperty("source_uri") String sourceUri,
    @JsonProperty("offset") long offset,
    @JsonProperty("reason") String reason,
    @JsonProperty("detail") String detail,
    @JsonProperty("prefix") String prefix) implements Serializable {
  static final int PREFIX_CHARS = 200;

  static QuarantinedRecord of(RawRecord raw, String reason, String detail) {
    return of(raw.sourceUri(), raw.offset(), reason, detail, raw.payload());
  }

  static QuarantinedRecord of(String uri, long offset, String reason, String detail, String text) {
    String p = text == null ? "" : text;
    return new QuarantinedRecord(uri, offset, reason, detail,
        p.length() > PREFIX_CHARS ? p.substring(0, PREFIX_CHARS) : p);
  }
}
