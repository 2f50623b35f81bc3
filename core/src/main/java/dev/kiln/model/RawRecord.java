package dev.kiln.model;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Serializable;

/**
 * One undecoded record as a source read it: a JSON line, a whole Markdown or text file, or a Parquet
 * row's columns. Parsing is a separate stage so that a malformed record can be
 * quarantined with its origin instead of failing the reader.
 *
 * @param sourceUri the file the record came from
 * @param offset the record's offset in that file: a line's byte offset (0 for whole-file formats); for
 *     Parquet the row's number in the file (an unreadable row group: its first row's)
 * @param format the input format that produced it
 * @param payload the record's text, or {@code null} when it could not be decoded or is a tombstone
 * @param problem the quarantine reason code when the record could not be decoded, or {@code null}
 * @param bytes how many bytes of the source the record took (for the bytes-read metric)
 * @param modified the source file's modification time in epoch milliseconds, or 0 when unknown
 * @param key a Kafka record's key as UTF-8 text (changelog records), or {@code null}: none, not
 *     UTF-8, or not a Kafka record
 * @param vector a Parquet row's vector column ({@code ingest.vector-field}) decoded straight into
 *     floats, in which case the payload's JSON lacks that field: 384 floats rendered as text and parsed
 *     back cost more than the rest of the row. {@code null} when the record has no such column, or it
 *     is not a plain list of numbers (then it stays in the JSON, for the parser to judge)
 * @param row a Parquet row's columns as its reader decoded them, handed to the parser as they are
 *     instead of rendered as JSON text and parsed back (which was a third of a rebuild's reading and
 *     parsing); {@link #payload()} renders it when text is asked for (a quarantined row). {@code null}
 *     for every other record. A record is not changed after its source emits it, so its serializer
 *     passes it on to a chained operator without a copy
 */
public record RawRecord(
    String sourceUri, long offset, InputFormat format, String payload, String problem, long bytes,
    long modified, String key, float[] vector, ObjectNode row) implements Serializable {

  public RawRecord(String sourceUri, long offset, InputFormat format, String payload, String problem, long bytes,
      long modified, String key, float[] vector) {
    this(sourceUri, offset, format, payload, problem, bytes, modified, key, vector, null);
  }

  public RawRecord(String sourceUri, long offset, InputFormat format, String payload, String problem, long bytes,
      long modified, String key) {
    this(sourceUri, offset, format, payload, problem, bytes, modified, key, null);
  }

  public RawRecord(String sourceUri, long offset, InputFormat format, String payload, String problem, long bytes,
      long modified) {
    this(sourceUri, offset, format, payload, problem, bytes, modified, null);
  }

  public RawRecord(String sourceUri, long offset, InputFormat format, String payload, String problem) {
    this(sourceUri, offset, format, payload, problem, payload == null ? 0 : payload.length(), 0L);
  }

  public static RawRecord of(String sourceUri, long offset, InputFormat format, String payload) {
    return new RawRecord(sourceUri, offset, format, payload, null);
  }

  /** A row of columns decoded by its reader ({@link #row}). */
  public static RawRecord ofRow(String sourceUri, long offset, InputFormat format, ObjectNode row) {
    return new RawRecord(sourceUri, offset, format, null, null, 0, 0L, null, null, row);
  }

  /** The record's text: as read, or its decoded row rendered as a JSON object; {@code null} when it has neither. */
  @Override
  public String payload() {
    return payload == null && row != null ? row.toString() : payload;
  }

  public static RawRecord undecodable(String sourceUri, long offset, InputFormat format, String problem) {
    return new RawRecord(sourceUri, offset, format, null, problem);
  }

  /** This record with its size in the source and its file's modification time. */
  public RawRecord withSource(long bytes, long modified) {
    return new RawRecord(sourceUri, offset, format, payload, problem, bytes, modified, key, vector, row);
  }

  /**
   * A Kafka compaction tombstone: a null value under a key, Kafka's way of saying the key is gone.
   * It has a key and neither a payload nor a problem.
   */
  public static RawRecord tombstone(String sourceUri, long offset, String key, long bytes, long timestamp) {
    return new RawRecord(sourceUri, offset, InputFormat.JSONL, null, null, bytes, timestamp, key);
  }

  public boolean isTombstone() {
    return payload == null && row == null && problem == null && key != null;
  }

  /** This record with the key of the Kafka record it was read from. */
  public RawRecord withKey(String value) {
    return new RawRecord(sourceUri, offset, format, payload, problem, bytes, modified, value, vector, row);
  }

  /** This record with its vector column decoded apart from the payload. */
  public RawRecord withVector(float[] values) {
    return new RawRecord(sourceUri, offset, format, payload, problem, bytes, modified, key, values, row);
  }
}
