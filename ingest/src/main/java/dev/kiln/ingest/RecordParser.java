package dev.kiln.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import dev.kiln.chunk.HtmlStructure;
import dev.kiln.config.IngestConfig;
import dev.kiln.model.ContentType;
import dev.kiln.model.Document;
import dev.kiln.model.DocumentFingerprint;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import dev.kiln.model.Utf16;
import java.io.Serializable;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes raw records into documents. JSON lines and Parquet rows (decoded into JSON object trees by
 * their reader) follow the BEIR layout with configurable field names ({@code _id}, {@code title},
 * {@code text}, optional {@code metadata} object of scalars); a Markdown or text file becomes one
 * document whose id is its path relative to the corpus root; an HTML file likewise, kept raw for the
 * HTML chunker and titled by its {@code <title>} or first {@code <h1>}. A PDF, DOCX or PPTX file is one
 * document the same way: its reader rendered its text as HTML with pages, slides and headings as
 * sections ({@link ExtractedDocument}); its properties (author, dates, page or slide count) join its
 * metadata after the path's and its title is theirs, else the file name. Every document gets metadata
 * from {@link MetadataExtractor}. A JSON-lines or Parquet record may carry its precomputed vector in
 * {@code ingest.vector-field}; it is checked by {@link SuppliedVectors} and travels with the document
 * (without a checker, as in changelog builds, the field is ignored and the model embeds the record).
 */
public final class RecordParser implements Serializable {
  private static final long serialVersionUID = 1L;
  // NaN and Infinity literals (Python's json.dumps writes them) parse, so a vector holding one is
  // quarantined as vector_not_finite rather than as malformed JSON.
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

  private final List<String> roots;
  private final IngestConfig config;
  private final MetadataExtractor metadata;
  private final SuppliedVectors vectors;
  // The last row's file: rows come file by file, and one parser serves one operator (one thread).
  private transient String lastRowUri;
  private transient String lastRowId;

  /** @param roots qualified corpus roots, used to turn file paths into document ids */
  public RecordParser(List<String> roots) {
    this(roots, new IngestConfig());
  }

  public RecordParser(List<String> roots, IngestConfig config) {
    this(roots, config, null);
  }

  /** @param vectors checks records' precomputed vectors against the model, or {@code null} to ignore them */
  public RecordParser(List<String> roots, IngestConfig config, SuppliedVectors vectors) {
    this.vectors = vectors;
    // Longest first, so a nested root wins over its parent.
    this.roots = roots.stream().sorted(Comparator.comparingInt(String::length).reversed()).toList();
    this.config = config;
    this.metadata = new MetadataExtractor(config);
  }

  public Document parse(RawRecord raw) throws MalformedRecordException {
    if (raw.problem() != null) {
      throw new MalformedRecordException(raw.problem(), describe(raw.problem()));
    }
    if (raw.row() != null) {
      // A Parquet row its reader decoded (and held to ingest.max-record-bytes) already.
      return parseDecoded(raw, raw.row());
    }
    if (raw.format().isExtracted()) {
      // Its reader held the extracted text to ingest.max-record-bytes; the payload adds markup to it.
      return parseExtracted(raw);
    }
    if (raw.payload().length() > config.maxRecordBytes) {
      throw new MalformedRecordException(QuarantineReason.TOO_LARGE,
          "record of " + raw.payload().length() + " characters exceeds ingest.max-record-bytes");
    }
    return switch (raw.format()) {
      case JSONL, PARQUET -> parseObject(raw);
      case MARKDOWN -> parseFile(raw, ContentType.MARKDOWN);
      case TEXT -> parseFile(raw, ContentType.TEXT);
      case HTML -> parseFile(raw, ContentType.HTML);
      default -> throw new MalformedRecordException(QuarantineReason.UNSUPPORTED_FORMAT,
          "unsupported format " + raw.format());
    };
  }

  private static String describe(String reason) {
    return switch (reason) {
      case QuarantineReason.INVALID_UTF8 -> "invalid UTF-8";
      case QuarantineReason.BINARY_FILE -> "binary content (NUL bytes) in a text input";
      case QuarantineReason.TOO_LARGE -> "record exceeds ingest.max-record-bytes";
      case QuarantineReason.EMPTY_RECORD -> "record without a value or key";
      case QuarantineReason.UNREADABLE_PATH -> "path cannot be read (symlink loop, dangling link, permissions)";
      case QuarantineReason.TRUNCATED_COMPRESSED -> "compressed stream ends early or is corrupt; records before it were read";
      case QuarantineReason.ENCRYPTED -> "document needs a password to open";
      case QuarantineReason.NO_TEXT_LAYER -> "PDF without extractable text (scanned or images only)";
      case QuarantineReason.CORRUPT_DOCUMENT -> "PDF or Office file cannot be parsed (truncated or damaged)";
      default -> reason;
    };
  }

  /** One JSON object, or the quarantine reason why the payload is not one (shared with the changelog). */
  static JsonNode readObject(String payload) throws MalformedRecordException {
    JsonNode node;
    try {
      node = JSON.readTree(payload);
    } catch (JsonProcessingException e) {
      throw new MalformedRecordException(QuarantineReason.MALFORMED_JSON, "malformed JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw new MalformedRecordException(QuarantineReason.NOT_AN_OBJECT, "not a JSON object");
    }
    return node;
  }

  private Document parseObject(RawRecord raw) throws MalformedRecordException {
    return parseDecoded(raw, readObject(raw.payload()));
  }

  private Document parseDecoded(RawRecord raw, JsonNode node) throws MalformedRecordException {
    String id = idOrNull(node);
    if (id == null) {
      throw new MalformedRecordException(QuarantineReason.MISSING_ID, "missing " + config.idField);
    }
    return parseRow(raw, node, id);
  }

  /** A record's id: its {@code ingest.id-field} ({@code id} too when that is {@code _id}), or null. */
  public String idOrNull(JsonNode node) {
    JsonNode id = node.get(config.idField);
    if (id == null && config.idField.equals("_id")) {
      id = node.get("id");
    }
    return id == null || !id.isValueNode() || id.isNull() || id.asText().isBlank() ? null : id.asText();
  }

  /**
   * A document from one JSON object whose id is already known: a record, or the row of a change
   * event. Title, text and metadata come from the configured fields, as for any record.
   */
  Document parseRow(RawRecord raw, JsonNode node, String id) throws MalformedRecordException {
    String title = textOf(node.get(config.titleField));
    String text = textOf(node.get(config.textField));
    if (title.isBlank() && text.isBlank()) {
      throw new MalformedRecordException(QuarantineReason.EMPTY_TEXT, "empty text");
    }
    Map<String, String> meta = rowMetadata(raw, node);
    requireCharacters(config.idField, id);
    requireCharacters(config.titleField, title);
    requireCharacters(config.textField, text);
    for (Map.Entry<String, String> e : meta.entrySet()) {
      requireCharacters("metadata " + e.getKey(), e.getKey());
      requireCharacters("metadata " + e.getKey(), e.getValue());
    }
    return new Document(id, title, text, meta, raw.sourceUri(), ContentType.TEXT, vectorOf(raw, node));
  }

  /**
   * Refuses a field holding half of a surrogate pair (a JSON escape such as U+D800 alone): it is no
   * character, and the index would store another in its place.
   */
  private static void requireCharacters(String field, String value) throws MalformedRecordException {
    int at = Utf16.firstUnpaired(value);
    if (at >= 0) {
      throw new MalformedRecordException(QuarantineReason.INVALID_UNICODE, String.format(
          "%s holds half of a surrogate pair (U+%04X) at character %d", field, (int) value.charAt(at), at));
    }
  }

  /**
   * The fingerprint {@link DocumentFingerprint#of} would give the document {@link #parse} makes of a
   * decoded row, computed without making it: the text is hashed from its UTF-8 bytes when the row kept
   * them ({@link Utf8Text}) and they are well-formed, so an incremental build never decodes an
   * unchanged row's text. {@code null} when the row would not become a document as it is (no id, no
   * text, a vector that fails its check), or is not a decoded row whose text was kept: then the caller
   * parses it and fingerprints the document.
   */
  public byte[] fingerprint(RawRecord raw, String settings) {
    ObjectNode node = raw.row();
    if (raw.problem() != null || node == null || !(node.get(config.textField) instanceof POJONode p)
        || !(p.getPojo() instanceof Utf8Text text)) {
      return null;
    }
    String id = idOrNull(node);
    if (id == null) {
      return null;
    }
    String title = textOf(node.get(config.titleField));
    byte[] utf8 = text.wellFormed();
    if (utf8 == null || (title.isBlank() && text.isBlank())) {
      return null;
    }
    float[] vector = null;
    if (vectors != null) {
      if (raw.vector() == null) {
        JsonNode v = node.get(config.vectorField);
        if (v != null && !v.isNull()) {
          return null; // a vector left in the row: the parser reads and checks it
        }
      } else {
        try {
          vector = vectors.check(raw.vector()); // read only: the row keeps its array
        } catch (MalformedRecordException e) {
          return null;
        }
      }
    }
    return DocumentFingerprint.ofUtf8Text(settings, id, title, utf8, rowMetadata(raw, node), ContentType.TEXT,
        vector);
  }

  /** A row's metadata: its file's and path patterns' entries, then the record's own. */
  private Map<String, String> rowMetadata(RawRecord raw, JsonNode node) {
    Map<String, String> meta = new LinkedHashMap<>();
    metadata.addSource(raw, rowRelativeId(raw.sourceUri()), meta);
    metadata.addRecord(node, meta);
    return meta;
  }

  /**
   * The record's precomputed vector, checked; {@code null} when it has none (JSON null counts as none).
   * A Parquet reader may have decoded it already ({@link RawRecord#vector}).
   */
  private float[] vectorOf(RawRecord raw, JsonNode node) throws MalformedRecordException {
    if (vectors == null) {
      return null;
    }
    if (raw.vector() != null) {
      return vectors.check(raw.vector().clone());
    }
    JsonNode v = node.get(config.vectorField);
    return v == null || v.isNull() ? null : vectors.parse(v);
  }

  private Document parseFile(RawRecord raw, ContentType type) throws MalformedRecordException {
    String text = raw.payload();
    if (text.isBlank()) {
      throw new MalformedRecordException(QuarantineReason.EMPTY_TEXT, "empty text");
    }
    String id = relativeId(raw.sourceUri());
    Map<String, String> meta = new LinkedHashMap<>();
    metadata.addSource(raw, id, meta);
    String title = switch (type) {
      case MARKDOWN -> firstHeading(text, id);
      // raw HTML stays the text: the HTML chunker reads its structure
      case HTML -> HtmlStructure.title(text, id);
      default -> fileName(id);
    };
    return new Document(id, title, text, meta, raw.sourceUri(), type);
  }

  private Document parseExtracted(RawRecord raw) throws MalformedRecordException {
    JsonNode node;
    try {
      node = ExtractedDocument.fromPayload(raw.payload());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("extracted document of " + raw.sourceUri() + " is not JSON", e);
    }
    String id = relativeId(raw.sourceUri());
    Map<String, String> meta = new LinkedHashMap<>();
    metadata.addSource(raw, id, meta);
    for (Map.Entry<String, JsonNode> e : node.get(ExtractedDocument.PROPERTIES).properties()) {
      meta.put(e.getKey(), e.getValue().asText());
    }
    String title = node.get(ExtractedDocument.TITLE).asText();
    return new Document(id, title.isBlank() ? fileName(id) : title, node.get(ExtractedDocument.HTML).asText(),
        meta, raw.sourceUri(), ContentType.HTML);
  }

  /** {@link #relativeId} of the file of a row, remembered for the next row of the same file. */
  private String rowRelativeId(String uri) {
    if (!uri.equals(lastRowUri)) {
      lastRowId = relativeId(uri);
      lastRowUri = uri;
    }
    return lastRowId;
  }

  /** The path of a file relative to the corpus root it was found under. */
  String relativeId(String uri) {
    for (String root : roots) {
      if (uri.equals(root)) {
        return uri.substring(uri.lastIndexOf('/') + 1);
      }
      String prefix = root.endsWith("/") ? root : root + "/";
      if (uri.startsWith(prefix)) {
        return uri.substring(prefix.length());
      }
    }
    return uri.substring(uri.lastIndexOf('/') + 1);
  }

  /** The corpus root a file was found under (for per-source metrics), or the file itself. */
  public String rootOf(String uri) {
    for (String root : roots) {
      if (uri.equals(root) || uri.startsWith(root.endsWith("/") ? root : root + "/")) {
        return root;
      }
    }
    return uri;
  }

  public List<String> roots() {
    return roots;
  }

  static String fileName(String path) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    if (InputFormat.isGzip(name)) {
      name = name.substring(0, name.length() - 3);
    }
    int dot = name.lastIndexOf('.');
    return dot > 0 ? name.substring(0, dot) : name;
  }

  static String firstHeading(String markdown, String fallback) {
    for (String line : markdown.split("\n", 200)) {
      String t = line.strip();
      if (t.startsWith("#")) {
        String h = t.replaceFirst("^#+", "").strip();
        if (!h.isEmpty()) {
          return h;
        }
      }
    }
    return fallback;
  }

  private static String textOf(JsonNode node) {
    return node == null || node.isNull() ? "" : node.asText();
  }
}
