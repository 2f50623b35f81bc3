package dev.kiln.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The text of a PDF, DOCX or PPTX file as the extraction readers produce it: a title, document
 * properties, and a body rendered as simple HTML — headings ({@code <h1>}…{@code <h6>}), paragraphs and
 * tables — so that the HTML structure chunker cuts it into sections with heading breadcrumbs, exactly as
 * it cuts an HTML file. Pages and slides are headings of their own ({@code Page 3}, {@code Slide 2:
 * Results}), so every chunk's breadcrumb says where it came from and no chunk spans two pages.
 *
 * <p>Extracted text counts against a budget (the record limit): past it, {@link TooLarge} stops the
 * extraction, so a large document is never held whole. Extraction also has a deadline ({@code
 * ingest.max-document-millis}), which the readers check as they go ({@link #checkDeadline}): past it,
 * {@link TooCostly} stops them. The record handed to the parser is a JSON object {@code {"title",
 * "html", "properties"}} ({@link #toPayload}, {@link #fromPayload}).
 */
final class ExtractedDocument {
  static final String TITLE = "title";
  static final String HTML = "html";
  static final String PROPERTIES = "properties";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final long budget;
  private final long maxMillis;
  private final long deadline;
  private final StringBuilder html = new StringBuilder();
  private final Map<String, String> properties = new LinkedHashMap<>();
  private String title = "";
  private long textChars;
  private boolean hasText;

  /** Thrown when the extracted text exceeds the budget. */
  static final class TooLarge extends Exception {
    private static final long serialVersionUID = 1L;

    TooLarge(long budget) {
      super("extracted text exceeds ingest.max-record-bytes (" + budget + " characters)");
    }
  }

  /** Thrown when extraction runs past the document's deadline, or past a reader's own work budget. */
  static final class TooCostly extends Exception {
    private static final long serialVersionUID = 1L;

    TooCostly(String message) {
      super(message);
    }
  }

  /** A document without a deadline (tests of the rendering alone). */
  ExtractedDocument(long budget) {
    this(budget, Long.MAX_VALUE);
  }

  /**
   * @param budget the most characters of text the document may have
   * @param maxMillis how long extracting it may take, from now ({@code ingest.max-document-millis})
   */
  ExtractedDocument(long budget, long maxMillis) {
    this.budget = budget;
    this.maxMillis = maxMillis;
    long now = System.nanoTime();
    long nanos = maxMillis >= Long.MAX_VALUE / 1_000_000 ? Long.MAX_VALUE / 2 : maxMillis * 1_000_000;
    this.deadline = now + nanos;
  }

  /** {@link TooCostly} once the deadline has passed; cheap enough to call every few thousand steps. */
  void checkDeadline() throws TooCostly {
    if (System.nanoTime() - deadline > 0) {
      throw new TooCostly("extraction ran past ingest.max-document-millis (" + maxMillis + " ms)");
    }
  }

  /** How many more characters of text the document may have. */
  long room() {
    return budget - textChars;
  }

  /**
   * {@link TooLarge} when {@code pending} more characters, held by a reader before it hands them over
   * (a paragraph, a table, a slide under way), would take the text past the budget.
   */
  void checkRoom(long pending) throws TooLarge {
    if (pending > room()) {
      throw new TooLarge(budget);
    }
  }

  void title(String t) {
    if (t != null && !t.isBlank() && title.isEmpty()) {
      title = t.strip().replaceAll("\\s+", " ");
    }
  }

  long budget() {
    return budget;
  }

  String title() {
    return title;
  }

  /** A document property; blank values are left out. */
  void property(String key, String value) {
    if (value != null && !value.isBlank()) {
      properties.put(key, value.strip());
    }
  }

  void property(String key, Instant value) {
    if (value != null) {
      properties.put(key, value.toString());
    }
  }

  void property(String key, long value) {
    if (value > 0) {
      properties.put(key, Long.toString(value));
    }
  }

  Map<String, String> properties() {
    return properties;
  }

  /** A heading of the document's own, level 1..6 (deeper levels are clamped to 6): it is text. */
  void heading(int level, String text) throws TooLarge {
    heading(level, text, true);
  }

  /**
   * A heading Kiln adds to mark a place — {@code Page 3}, {@code Slide 2}, a PDF bookmark — which is no
   * text of the document's own: a document of labels alone has no text.
   */
  void label(int level, String text) throws TooLarge {
    heading(level, text, false);
  }

  private void heading(int level, String text, boolean isText) throws TooLarge {
    String t = text == null ? "" : text.strip();
    if (t.isEmpty()) {
      return;
    }
    int l = Math.max(1, Math.min(6, level));
    count(t, isText);
    html.append("<h").append(l).append('>');
    escape(html, t);
    html.append("</h").append(l).append(">\n");
  }

  /** A paragraph; its line breaks are kept. */
  void paragraph(String text) throws TooLarge {
    if (text == null || text.isBlank()) {
      return;
    }
    count(text, true);
    html.append("<p>");
    escapeLines(text.strip());
    html.append("</p>\n");
  }

  /** A table; the first row is its header. Rows without any text are left out. */
  void table(List<List<String>> rows) throws TooLarge {
    StringBuilder t = new StringBuilder("<table>\n");
    boolean any = false;
    for (List<String> row : rows) {
      if (row.stream().allMatch(c -> c == null || c.isBlank())) {
        continue;
      }
      t.append("<tr>");
      for (String cell : row) {
        String c = cell == null ? "" : cell.strip();
        count(c, true);
        t.append("<td>");
        escape(t, c);
        t.append("</td>");
      }
      t.append("</tr>\n");
      any = true;
    }
    if (any) {
      html.append(t).append("</table>\n");
    }
  }

  /** Whether any text of the document's own was extracted (labels are not). */
  boolean hasText() {
    return hasText;
  }

  private void count(String text, boolean body) throws TooLarge {
    textChars += text.length();
    if (textChars > budget) {
      throw new TooLarge(budget);
    }
    if (body && !text.isBlank()) {
      hasText = true;
    }
  }

  private void escapeLines(String text) {
    // A line break inside a paragraph stays one (the HTML structure keeps <br> as a newline): \n, \r or
    // \r\n, as String.lines splits, without a string per line.
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n' || c == '\r') {
        escape(html, text, start, i);
        html.append("<br>");
        if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
          i++;
        }
        start = i + 1;
      }
    }
    escape(html, text, start, text.length());
  }

  private static void escape(StringBuilder out, String s) {
    escape(out, s, 0, s.length());
  }

  private static void escape(StringBuilder out, String s, int from, int to) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        // NUL and other C0 controls are not text; PDF extraction yields them for unmapped glyphs.
        default -> out.append(c < 0x20 && c != '\t' ? ' ' : c);
      }
    }
  }

  String toPayload() {
    ObjectNode o = JSON.createObjectNode();
    o.put(TITLE, title);
    o.put(HTML, html.toString());
    ObjectNode p = o.putObject(PROPERTIES);
    properties.forEach(p::put);
    try {
      return JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The payload's parts: {@code title}, {@code html} and the properties object. */
  static JsonNode fromPayload(String payload) throws JsonProcessingException {
    return JSON.readTree(payload);
  }
}
