package dev.kiln.ingest;

/**
 * The reason codes a record is quarantined under. They are the keys of the manifest's
 * {@code quarantine.by_reason} and of the counters table, so they are stable identifiers: add new
 * ones, never rename.
 */
public final class QuarantineReason {
  private QuarantineReason() {}

  public static final String MALFORMED_JSON = "malformed_json";
  public static final String NOT_AN_OBJECT = "not_an_object";
  public static final String MISSING_ID = "missing_id";
  public static final String EMPTY_TEXT = "empty_text";
  public static final String INVALID_UTF8 = "invalid_utf8";
  /**
   * An id, title, text or metadata field holding half of a surrogate pair (a JSON escape such as
   * U+D800 without its partner): not a character, so no index could keep the text as written.
   */
  public static final String INVALID_UNICODE = "invalid_unicode";
  public static final String BINARY_FILE = "binary_file";
  public static final String TOO_LARGE = "too_large";
  public static final String DUPLICATE_ID = "duplicate_id";
  public static final String UNREADABLE_ROW_GROUP = "unreadable_row_group";
  public static final String UNREADABLE_FILE = "unreadable_file";
  public static final String UNSUPPORTED_FORMAT = "unsupported_format";
  /**
   * A changelog record whose {@code op} is missing or neither {@code upsert} nor {@code delete}, or a
   * Debezium event whose op is not {@code c}, {@code u}, {@code r} or {@code d}.
   */
  public static final String UNKNOWN_OP = "unknown_op";
  /** A Debezium change event (it has {@code before}, {@code after} or a {@code payload}) without an {@code op}. */
  public static final String MISSING_OP = "missing_op";
  /** A Debezium create, update or snapshot read ({@code c}, {@code u}, {@code r}) without an {@code after} row. */
  public static final String MISSING_AFTER = "missing_after";
  /** A changelog record with an empty value, or without value and key (a tombstone with a key deletes it). */
  public static final String EMPTY_RECORD = "empty_record";
  /**
   * A corpus path that cannot be listed or opened: a symlink loop, a dangling link, no permission, or
   * a file that vanished between listing and reading. The rest of the tree is still read.
   */
  public static final String UNREADABLE_PATH = "unreadable_path";
  /**
   * A compressed file ({@code .gz}) that ends early or is corrupt: the records before the damage are
   * read, the damaged tail is this one record.
   */
  public static final String TRUNCATED_COMPRESSED = "truncated_compressed";

  /** A PDF or Office file that needs a password to open. */
  public static final String ENCRYPTED = "encrypted";
  /** A PDF whose pages yield no text: scanned pages or images only (Kiln does no OCR). */
  public static final String NO_TEXT_LAYER = "no_text_layer";
  /**
   * A PDF or Office file that its library cannot parse: truncated (no PDF trailer, no ZIP central
   * directory), not the format its name says, or damaged inside.
   */
  public static final String CORRUPT_DOCUMENT = "corrupt_document";
  /**
   * A PDF or Office file whose extraction costs more than a document may: it ran past {@code
   * ingest.max-document-millis}, or (a PDF) a page's form XObjects multiplied its work far beyond what
   * its content spells out (nested forms that each draw the next several times turn a few kilobytes into
   * billions of operations). Nothing of the content is written.
   */
  public static final String TOO_COSTLY = "too_costly";

  /** A precomputed vector that is not an array of numbers. */
  public static final String VECTOR_MALFORMED = "vector_malformed";
  /** A precomputed vector whose dimension is not the model's. */
  public static final String VECTOR_DIMENSION = "vector_dimension";
  /** A precomputed vector with a NaN or infinite component (or one beyond float range). */
  public static final String VECTOR_NOT_FINITE = "vector_not_finite";
  /** A precomputed vector of length zero: it has no direction, so no similarity. */
  public static final String VECTOR_ZERO = "vector_zero";
  /** A precomputed vector not of unit length although the model normalises its vectors. */
  public static final String VECTOR_NOT_UNIT = "vector_not_unit";
}
