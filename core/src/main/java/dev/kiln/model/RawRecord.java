package dev.kiln.model;

/**
 * One undecoded record as a source read it: a JSON line, a whole Markdown or text file, or a Parquet
 * row rendered as a JSON object. Parsing is a separate stage so that a malformed record can be
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
 */
public record RawRecord(
    String sourceUri, long offset, InputFormat format, String payload, String problem, long bytes,
    long modified, String key, float[] vector) implements java.io.Serializable {

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

  public static RawRecord undecodable(String sourceUri, long offset, InputFormat format, String problem) {
    return new RawRecord(sourceUri, offset, format, null, problem);
  }

  /** This record with its size in the source and its file's modification time. */
  public RawRecord withSource(long bytes, long modified) {
    return new RawRecord(sourceUri, offset, format, payload, problem, bytes, modified, key, vector);
  }

  /**
   * A Kafka compaction tombstone: a null value under a key, Kafka's way of saying the key is gone.
   * It has a key and neither a payload nor a problem.
   */
  public static RawRecord tombstone(String sourceUri, long offset, String key, long bytes, long timestamp) {
    return new RawRecord(sourceUri, offset, InputFormat.JSONL, null, null, bytes, timestamp, key);
  }

  public boolean isTombstone() {
    return payload == null && problem == null && key != null;
  }

  /** This record with the key of the Kafka record it was read from. */
  public RawRecord withKey(String value) {
    return new RawRecord(sourceUri, offset, format, payload, problem, bytes, modified, value, vector);
  }

  /** This record with its vector column decoded apart from the payload. */
  public RawRecord withVector(float[] values) {
    return new RawRecord(sourceUri, offset, format, payload, problem, bytes, modified, key, values);
  }
}
