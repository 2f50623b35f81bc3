package dev.kiln.model;

/**
 * What a document's text is written in. Structure-aware chunkers use it to choose how to cut; plain
 * text chunkers treat every type as text.
 */
public enum ContentType {
  TEXT,
  MARKDOWN,
  HTML
}
