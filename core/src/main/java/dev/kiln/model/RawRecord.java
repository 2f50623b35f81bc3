package dev.kiln.model;

/**
 * One undecoded record as a source read it: a JSON line, or a whole Markdown file. Parsing is a
 * separate stage so that a malformed record can be quarantined with its origin instead of failing the
 * reader.
 *
 * @param sourceUri the file the record came from
 * @param offset byte offset of the record in that file (0 for whole-file formats)
 * @param format the input format that produced it
 * @param payload the record's text, or {@code null} when it could not be decoded
 * @param problem why the record could not be decoded, or {@code null}
 */
public record RawRecord(
    String sourceUri, long offset, InputFormat format, String payload, String problem)
    implements java.io.Serializable {

  public static RawRecord of(String sourceUri, long offset, InputFormat format, String payload) {
    return new RawRecord(sourceUri, offset, format, payload, null);
  }

  public static RawRecord undecodable(String sourceUri, long offset, InputFormat format, String problem) {
    return new RawRecord(sourceUri, offset, format, null, problem);
  }
}
