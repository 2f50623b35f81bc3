package dev.kiln.model;

import java.util.Map;

/**
 * A piece of a document that is embedded and indexed on its own.
 *
 * @param chunkId {@code docId + "#" + ordinal}: stable across runs and parallelism
 * @param docId the owning document's id
 * @param ordinal position of the chunk within its document, from 0
 * @param title the owning document's title
 * @param text the chunk's text: an exact substring of the document text for window and recursive
 *     chunks and for Markdown blocks; for HTML, text extracted from the markup; a table part that
 *     had to be split starts with the table's header row again
 * @param startChar offset of the chunk's first character in the chunked text
 * @param endChar offset after the chunk's last character
 * @param tokens number of model tokens in the chunk (without special tokens); 0 for a chunk with a
 *     precomputed vector, which is never tokenized
 * @param metadata the document's metadata
 * @param breadcrumb heading path of the section the chunk lies in, {@code "A > B > C"}; empty when the
 *     document has no structure
 * @param contentKey hash of the chunker settings' fingerprint and the exact embedding input: equal
 *     keys mean an equal embedding, so an embedding can be reused by key
 * @param parentId id of the parent chunk ({@code docId#p<ordinal>}) under parent-child chunking, else
 *     {@code null}
 * @param oversize true when the chunk is an indivisible block (code, table) larger than the chunk
 *     size, kept whole because it is within the hard cap
 * @param language {@code "zh"} when the document is Chinese (BM25 analyses it with a Chinese
 *     analyzer), else empty
 * @param vector the precomputed embedding its record carried (the embed stage passes it through
 *     instead of running the model), or {@code null}
 * @param docFingerprint the owning document's {@link DocumentFingerprint} (hex), written with the chunk
 *     so that the next build can tell an unchanged document from a changed one; empty when unknown
 * @param source the record the chunk was cut from, or {@code null} when unknown: a full build's shard
 *     writer keeps, of several records with one document id, the chunks of the first (not indexed)
 */
public record Chunk(
    String chunkId,
    String docId,
    int ordinal,
    String title,
    String text,
    int startChar,
    int endChar,
    int tokens,
    Map<String, String> metadata,
    String breadcrumb,
    String contentKey,
    String parentId,
    boolean oversize,
    String language,
    float[] vector,
    String docFingerprint,
    RecordPosition source) {

  /** A chunk without a record position. */
  public Chunk(String chunkId, String docId, int ordinal, String title, String text, int startChar,
      int endChar, int tokens, Map<String, String> metadata, String breadcrumb, String contentKey,
      String parentId, boolean oversize, String language, float[] vector, String docFingerprint) {
    this(chunkId, docId, ordinal, title, text, startChar, endChar, tokens, metadata, breadcrumb, contentKey,
        parentId, oversize, language, vector, docFingerprint, null);
  }

  /** A chunk without its document's fingerprint (set later by {@link #withDocFingerprint}). */
  public Chunk(String chunkId, String docId, int ordinal, String title, String text, int startChar,
      int endChar, int tokens, Map<String, String> metadata, String breadcrumb, String contentKey,
      String parentId, boolean oversize, String language, float[] vector) {
    this(chunkId, docId, ordinal, title, text, startChar, endChar, tokens, metadata, breadcrumb, contentKey,
        parentId, oversize, language, vector, "");
  }

  /** A chunk without a precomputed vector. */
  public Chunk(String chunkId, String docId, int ordinal, String title, String text, int startChar,
      int endChar, int tokens, Map<String, String> metadata, String breadcrumb, String contentKey,
      String parentId, boolean oversize, String language) {
    this(chunkId, docId, ordinal, title, text, startChar, endChar, tokens, metadata, breadcrumb, contentKey,
        parentId, oversize, language, null);
  }

  /** A plain chunk: no structure, no parent, no content key yet. */
  public Chunk(String chunkId, String docId, int ordinal, String title, String text, int startChar,
      int endChar, int tokens, Map<String, String> metadata) {
    this(chunkId, docId, ordinal, title, text, startChar, endChar, tokens, metadata, "", "", null,
        false, "");
  }

  public Chunk {
    breadcrumb = breadcrumb == null ? "" : breadcrumb;
    contentKey = contentKey == null ? "" : contentKey;
    language = language == null ? "" : language;
    docFingerprint = docFingerprint == null ? "" : docFingerprint;
  }

  public static String chunkId(String docId, int ordinal) {
    return docId + "#" + ordinal;
  }

  /** The same chunk with identity and context filled in by the chunk stage. */
  public Chunk with(int newOrdinal, String newBreadcrumb, String newContentKey, String newParentId,
      String newLanguage) {
    return new Chunk(chunkId(docId, newOrdinal), docId, newOrdinal, title, text, startChar, endChar,
        tokens, metadata, newBreadcrumb, newContentKey, newParentId, oversize, newLanguage, vector, docFingerprint, source);
  }

  /** This chunk with a precomputed vector attached. */
  public Chunk withVector(float[] newVector) {
    return new Chunk(chunkId, docId, ordinal, title, text, startChar, endChar, tokens, metadata, breadcrumb,
        contentKey, parentId, oversize, language, newVector, docFingerprint, source);
  }

  /** This chunk marked with its document's fingerprint. */
  public Chunk withDocFingerprint(String fingerprint) {
    return new Chunk(chunkId, docId, ordinal, title, text, startChar, endChar, tokens, metadata, breadcrumb,
        contentKey, parentId, oversize, language, vector, fingerprint, source);
  }

  /** This chunk marked with the position of the record it was cut from. */
  public Chunk withSource(RecordPosition position) {
    return new Chunk(chunkId, docId, ordinal, title, text, startChar, endChar, tokens, metadata, breadcrumb,
        contentKey, parentId, oversize, language, vector, docFingerprint, position);
  }
}
