package dev.kiln.model;

import java.util.Map;

/**
 * A piece of a document that is embedded and indexed on its own.
 *
 * @param chunkId {@code docId + "#" + ordinal}: stable across runs and parallelism
 * @param docId the owning document's id
 * @param ordinal position of the chunk within its document, from 0
 * @param title the owning document's title
 * @param text the chunk's text, an exact substring of the document text
 * @param startChar offset of the chunk's first character in the document text
 * @param endChar offset after the chunk's last character
 * @param tokens number of model tokens in the chunk (without special tokens)
 * @param metadata the document's metadata
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
    Map<String, String> metadata) {

  public static String chunkId(String docId, int ordinal) {
    return docId + "#" + ordinal;
  }
}
