package dev.kiln.model;

import java.io.Serializable;

/**
 * A parent under parent-child chunking: a section or a large window whose small children are indexed
 * for retrieval. Parents are stored once per snapshot in its docstore and returned instead of their
 * children when a searcher asks for them.
 *
 * @param parentId {@code docId#p<ordinal>}
 * @param docId the owning document
 * @param ordinal position among the document's parents, from 0
 * @param title the document title
 * @param breadcrumb heading path of the section, or empty
 * @param text the parent's text
 * @param tokens model tokens in the text
 * @param source the record the parent was cut from, or {@code null} when unknown (see {@link Chunk#source})
 */
public record ParentChunk(
    String parentId, String docId, int ordinal, String title, String breadcrumb, String text, int tokens,
    RecordPosition source) implements Serializable {

  /** A parent without a record position. */
  public ParentChunk(String parentId, String docId, int ordinal, String title, String breadcrumb, String text,
      int tokens) {
    this(parentId, docId, ordinal, title, breadcrumb, text, tokens, null);
  }

  /** This parent marked with the position of the record it was cut from. */
  public ParentChunk withSource(RecordPosition position) {
    return new ParentChunk(parentId, docId, ordinal, title, breadcrumb, text, tokens, position);
  }

  public static String parentId(String docId, int ordinal) {
    return docId + "#p" + ordinal;
  }
}
