package dev.kiln.ingest;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;

/**
 * The text of a DOCX file: the body's paragraphs and tables in order, read in one streaming pass over
 * the main part (the part the package's relationship names, whatever its name), so that what is held
 * is the paragraph or table at hand. Paragraphs in Word's heading styles ({@code heading 1}…{@code
 * heading 9}, recognised by the style's name, which Word keeps in English whatever the user's language,
 * or else by its id) or with an outline level become headings, so sections get breadcrumbs as in
 * Markdown; a paragraph in the {@code Title} style titles the document when its properties do not.
 * Content controls and custom XML are read through; headers, footers, footnotes, comments, text boxes
 * and deleted (tracked) text are left out.
 *
 * <p>A DOCX has no page numbers until a word processor lays it out, so its chunks carry headings but no
 * pages; the page count Word recorded in the file, when there is one, is the {@code pages} property.
 */
final class DocxReader implements DocumentReader {
  private static final Pattern HEADING = Pattern.compile("heading\\s*([1-9])");

  @Override
  public void read(File file, ExtractedDocument out) throws MalformedRecordException, IOException {
    OfficeFiles.read(file, out, "DOCX", DocxReader::extract);
  }

  private static void extract(OfficePackage pkg, ExtractedDocument out) throws MalformedRecordException,
      ExtractedDocument.TooLarge, ExtractedDocument.TooCostly, XMLStreamException, IOException {
    String main = OfficeFiles.mainPart(pkg, "Word document", "wordprocessingml", "ms-word");
    OfficeFiles.properties(pkg, out, true);
    Map<String, String> styles = styles(pkg, main);
    try (OfficeXml x = OfficeXml.open(pkg, main)) {
      new Body(x, styles, out).read();
    }
  }

  /** Paragraph style names by style id, from the styles part related to the main part. */
  private static Map<String, String> styles(OfficePackage pkg, String main) throws IOException, XMLStreamException,
      MalformedRecordException, ExtractedDocument.TooCostly {
    Map<String, String> names = new HashMap<>();
    OfficePackage.Relationship rel = pkg.related(main, "/styles");
    if (rel == null || !pkg.has(rel.target())) {
      return names;
    }
    try (OfficeXml x = OfficeXml.open(pkg, rel.target())) {
      String id = null;
      while (x.next() != XMLStreamConstants.END_DOCUMENT) {
        if (x.isStart("style") && x.depth() == 2) {
          id = x.attr("styleId");
        } else if (x.isStart("name") && x.depth() == 3 && id != null && x.attr("val") != null) {
          names.putIfAbsent(id, x.attr("val"));
        } else if (x.isStart() && x.depth() == 3) {
          x.skip();
        }
      }
    }
    return names;
  }

  /** 1..9 for a heading, else 0: by the style's name, else by the paragraph's own outline level (0..8). */
  static int headingLevel(String styleName, int outlineLevel) {
    Matcher m = HEADING.matcher(styleName);
    if (m.matches()) {
      return m.group(1).charAt(0) - '0';
    }
    // Outline levels 0..8 are heading levels 1..9; 9 is body text.
    return outlineLevel >= 0 && outlineLevel < 9 ? outlineLevel + 1 : 0;
  }

  /** A paragraph's text and what makes it a heading. */
  private record Paragraph(String text, String styleId, int outlineLevel) {}

  /**
   * One pass over {@code w:body}. The methods recurse as elements nest (a table in a cell), never
   * deeper than {@link OfficeXml#MAX_DEPTH}.
   */
  private static final class Body {
    private final OfficeXml x;
    private final Map<String, String> styles;
    private final ExtractedDocument out;
    /** Characters held in the tables under way, not yet handed to the document. */
    private long held;

    Body(OfficeXml x, Map<String, String> styles, ExtractedDocument out) {
      this.x = x;
      this.styles = styles;
      this.out = out;
    }

    void read() throws XMLStreamException, MalformedRecordException, ExtractedDocument.TooCostly,
        ExtractedDocument.TooLarge {
      while (x.next() != XMLStreamConstants.END_DOCUMENT) {
        if (x.isStart("body")) {
          blocks(x.depth());
        }
      }
    }

    /** The paragraphs and tables in the element started at {@code depth}, to its end. */
    private void blocks(int depth) throws XMLStreamException, MalformedRecordException,
        ExtractedDocument.TooCostly, ExtractedDocument.TooLarge {
      while (x.next() != XMLStreamConstants.END_DOCUMENT && !x.isEndOf(depth)) {
        if (!x.isStart()) {
          continue;
        }
        switch (x.name()) {
          case "p" -> emit(paragraph());
          case "tbl" -> {
            List<List<String>> rows = table();
            held = 0;
            out.table(rows);
          }
          // Content controls, custom XML and their content: read through.
          case "sdt", "sdtContent", "customXml", "smartTag" -> { }
          default -> x.skip();
        }
      }
    }

    private void emit(Paragraph p) throws ExtractedDocument.TooLarge {
      String text = p.text();
      if (text.isBlank()) {
        return;
      }
      String style = styleName(p.styleId());
      int level = headingLevel(style, p.outlineLevel());
      if (level > 0) {
        out.heading(level, text);
        return;
      }
      if ("title".equals(style)) {
        out.title(text);
      }
      out.paragraph(text);
    }

    /** The paragraph style's name in lower case, else its id, else "". */
    private String styleName(String id) {
      if (id == null) {
        return "";
      }
      return styles.getOrDefault(id, id).toLowerCase(Locale.ROOT);
    }

    /** The paragraph just started: its runs' text (tabs and breaks kept), style and outline level. */
    private Paragraph paragraph() throws XMLStreamException, MalformedRecordException,
        ExtractedDocument.TooCostly, ExtractedDocument.TooLarge {
      int depth = x.depth();
      StringBuilder text = new StringBuilder();
      String style = null;
      int outline = -1;
      while (x.next() != XMLStreamConstants.END_DOCUMENT && !x.isEndOf(depth)) {
        if (!x.isStart()) {
          continue;
        }
        switch (x.name()) {
          case "pPr" -> {
            int pPr = x.depth();
            while (x.next() != XMLStreamConstants.END_DOCUMENT && !x.isEndOf(pPr)) {
              if (x.isStart("pStyle") && x.depth() == pPr + 1) {
                style = x.attr("val");
              } else if (x.isStart("outlineLvl") && x.depth() == pPr + 1) {
                outline = level(x.attr("val"));
              } else if (x.isStart()) {
                x.skip(); // run properties, tracked property changes, section properties
              }
            }
          }
          case "t" -> x.text(text, out.room() - held);
          case "tab", "ptab" -> text.append('\t');
          case "br", "cr" -> text.append('\n');
          // Drawings, text boxes, embedded objects, deleted and moved-away text, field codes, formatting.
          case "drawing", "pict", "object", "AlternateContent", "del", "moveFrom", "instrText", "rPr",
              "sdtPr" -> x.skip();
          default -> { } // runs, hyperlinks, insertions, fields, content controls: read through
        }
      }
      return new Paragraph(text.toString(), style, outline);
    }

    private static int level(String value) {
      try {
        return value == null ? -1 : Integer.parseInt(value.strip());
      } catch (NumberFormatException e) {
        return -1;
      }
    }

    /** The table just started: its rows of cell texts; a table in a cell is part of the cell's text. */
    private List<List<String>> table() throws XMLStreamException, MalformedRecordException,
        ExtractedDocument.TooCostly, ExtractedDocument.TooLarge {
      int depth = x.depth();
      List<List<String>> rows = new ArrayList<>();
      List<String> row = null;
      while (x.next() != XMLStreamConstants.END_DOCUMENT && !x.isEndOf(depth)) {
        if (!x.isStart()) {
          continue;
        }
        switch (x.name()) {
          case "tr" -> {
            row = new ArrayList<>();
            rows.add(row);
          }
          case "tc" -> {
            if (row == null) {
              row = new ArrayList<>();
              rows.add(row);
            }
            String cell = cell();
            held += cell.length();
            row.add(cell);
          }
          case "tblPr", "tblGrid", "trPr", "tblPrEx" -> x.skip();
          default -> { } // rows and cells in content controls or custom XML
        }
      }
      return rows;
    }

    /** The cell just started: its paragraphs, one per line, and its tables, a row per line. */
    private String cell() throws XMLStreamException, MalformedRecordException, ExtractedDocument.TooCostly,
        ExtractedDocument.TooLarge {
      int depth = x.depth();
      StringBuilder text = new StringBuilder();
      while (x.next() != XMLStreamConstants.END_DOCUMENT && !x.isEndOf(depth)) {
        if (!x.isStart()) {
          continue;
        }
        switch (x.name()) {
          case "p" -> line(text, paragraph().text());
          case "tbl" -> {
            long before = held;
            for (List<String> r : table()) {
              line(text, String.join("\t", r));
            }
            held = before;
          }
          case "tcPr" -> x.skip();
          default -> { }
        }
      }
      return text.toString();
    }

    private void line(StringBuilder text, String line) throws ExtractedDocument.TooLarge {
      if (!text.isEmpty()) {
        text.append('\n');
      }
      text.append(line);
      out.checkRoom(held + text.length());
    }
  }
}
