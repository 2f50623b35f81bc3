package dev.kiln.model;

import java.util.Map;

/**
 * A parsed, normalised source document: the unit that is routed to a shard (every chunk of a document
 * lands in the same shard).
 *
 * @param id stable document id (from the record, or the file's path relative to its corpus root)
 * @param title title, possibly empty
 * @param text body text
 * @param metadata flat string metadata carried to every chunk (filterable in the segments)
 * @param sourceUri where the document was read from
 * @param contentType what the text is written in (raw Markdown or HTML stays raw for structure-aware chunkers)
 * @param vector the record's precomputed embedding (already checked by the parser), or {@code null}
 *     when the model is to embed it; a document with a vector is indexed as exactly one chunk
 */
public record Document(
    String id, String title, String text, Map<String, String> metadata, String sourceUri,
    ContentType contentType, float[] vector) {

  /** A document without a precomputed vector. */
  public Document(String id, String title, String text, Map<String, String> metadata, String sourceUri,
      ContentType contentType) {
    this(id, title, text, metadata, sourceUri, contentType, null);
  }

  /** A plain-text document. */
  public Document(String id, String title, String text, Map<String, String> metadata, String sourceUri) {
    this(id, title, text, metadata, sourceUri, ContentType.TEXT);
  }

  public Document {
    if (id == null || id.isEmpty()) {
      throw new IllegalArgumentException("document id must not be empty");
    }
    title = title == null ? "" : title;
    text = text == null ? "" : text;
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    contentType = contentType == null ? ContentType.TEXT : contentType;
  }
}
