package dev.kiln.chunk;

/**
 * One block of a structured document: a heading, a paragraph or list, a code block or a table, as a
 * character range of the structured text.
 *
 * @param kind what the block is; code and tables are indivisible up to the hard cap
 * @param start first character in the structured text
 * @param end character after the block
 * @param breadcrumb heading path of the section the block belongs to ({@code "A > B"}); a heading's
 *     own path ends with itself
 * @param headerEnd for a table, where its header (the header row and, in Markdown, the delimiter
 *     row) ends; else {@code start}
 */
public record Block(Kind kind, int start, int end, String breadcrumb, int headerEnd) {

  /** Block kinds. */
  public enum Kind {
    HEADING,
    TEXT,
    CODE,
    TABLE;

    boolean indivisible() {
      return this == CODE || this == TABLE;
    }
  }
}
