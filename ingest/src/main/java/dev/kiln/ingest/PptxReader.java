package dev.kiln.ingest;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;

/**
 * The text of a PPTX file, slide by slide in the presentation's order, each slide's part read in one
 * streaming pass and handed on before the next is opened, so that what is held is one slide. Every slide
 * is a section headed {@code Slide N: <its title>} (or {@code Slide N} without a title), so a chunk's
 * breadcrumb names its slide; the slide's text boxes, grouped shapes and tables follow in drawing order,
 * and its speaker notes as a {@code Notes} subsection. Properties: the package's title, author and
 * dates, and the slide count.
 */
final class PptxReader implements DocumentReader {
  @Override
  public void read(File file, ExtractedDocument out) throws MalformedRecordException, IOException {
    OfficeFiles.read(file, out, "PPTX", PptxReader::extract);
  }

  private static void extract(OfficePackage pkg, ExtractedDocument out) throws MalformedRecordException,
      ExtractedDocument.TooLarge, ExtractedDocument.TooCostly, XMLStreamException, IOException {
    String main = OfficeFiles.mainPart(pkg, "PowerPoint presentation", "presentationml", "ms-powerpoint");
    OfficeFiles.properties(pkg, out, false);
    List<String> slides = slides(pkg, main);
    out.property(SLIDES, slides.size());
    for (int i = 0; i < slides.size(); i++) {
      slide(pkg, slides.get(i), i + 1, out);
    }
  }

  /** The slides' part names, in the order of the presentation's slide list. */
  private static List<String> slides(OfficePackage pkg, String main) throws IOException, XMLStreamException,
      MalformedRecordException, ExtractedDocument.TooCostly {
    Map<String, String> targets = new HashMap<>();
    for (OfficePackage.Relationship r : pkg.relationships(main)) {
      if (r.is("/slide")) {
        targets.put(r.id(), r.target());
      }
    }
    List<String> slides = new ArrayList<>();
    try (OfficeXml x = OfficeXml.open(pkg, main)) {
      while (x.next() != XMLStreamConstants.END_DOCUMENT) {
        if (x.isStart("sldId")) {
          String part = targets.get(x.relationshipId());
          if (part != null && pkg.has(part)) {
            slides.add(part);
          }
        } else if (x.isStart() && x.depth() == 2 && !x.name().equals("sldIdLst")) {
          x.skip(); // masters, sizes, text styles
        }
      }
    }
    return slides;
  }

  private static void slide(OfficePackage pkg, String part, int number, ExtractedDocument out)
      throws IOException, XMLStreamException, MalformedRecordException, ExtractedDocument.TooCostly,
      ExtractedDocument.TooLarge {
    Shapes shapes = new Shapes(out);
    try (OfficeXml x = OfficeXml.open(pkg, part)) {
      shapes.read(x);
    }
    String title = shapes.title;
    String label = "Slide " + number;
    boolean titled = title != null && !title.isBlank();
    if (titled) {
      out.heading(1, label + ": " + title.strip().replaceAll("\\s+", " "));
    } else {
      out.label(1, label);
    }
    if (titled && number == 1) {
      out.title(title); // the first slide's title, when the properties have none
    }
    shapes.emit(out);

    OfficePackage.Relationship notesRel = pkg.related(part, "/notesSlide");
    if (notesRel != null && pkg.has(notesRel.target())) {
      Shapes notes = new Shapes(out);
      try (OfficeXml x = OfficeXml.open(pkg, notesRel.target())) {
        notes.read(x);
      }
      if (notes.hasBodyText()) {
        out.label(2, "Notes");
        notes.emitBody(out);
      }
    }
  }

  /**
   * The text of one slide's (or notes page's) shapes in drawing order: each shape's paragraphs with its
   * placeholder type, each table's rows; the first title placeholder's text is the title and no shape.
   */
  private static final class Shapes {
    private final ExtractedDocument out;
    private final List<Object> items = new ArrayList<>();
    private long held;
    String title;

    Shapes(ExtractedDocument out) {
      this.out = out;
    }

    /** A text shape: its placeholder type ({@code null} for none) and paragraphs. */
    private record Text(String placeholder, List<String> paragraphs) {
      boolean isTitle() {
        return "title".equals(placeholder) || "ctrTitle".equals(placeholder);
      }
    }

    /** A table's rows of cell texts. */
    private record Table(List<List<String>> rows) {}

    void read(OfficeXml x) throws XMLStreamException, MalformedRecordException, ExtractedDocument.TooCostly,
        ExtractedDocument.TooLarge {
      while (x.next() != XMLStreamConstants.END_DOCUMENT) {
        if (!x.isStart()) {
          continue;
        }
        switch (x.name()) {
          case "sp" -> {
            Text t = text(x);
            if (!t.isTitle()) {
              items.add(t);
            } else if (title == null) {
              title = String.join("\n", t.paragraphs());
            }
          }
          case "graphicFrame" -> frame(x);
          // Pictures, connectors, legacy fallbacks of newer content, colour maps, transitions, timing.
          case "pic", "cxnSp", "Fallback", "contentPart", "clrMapOvr", "transition", "timing", "extLst" -> x.skip();
          default -> { } // the shape tree, groups, alternate content: read through
        }
      }
    }

    /** The shape just started. */
    private Text text(OfficeXml x) throws XMLStreamException, MalformedRecordException,
        ExtractedDocument.TooCostly, ExtractedDocument.TooLarge {
      int depth = x.depth();
      String placeholder = null;
      List<String> paragraphs = new ArrayList<>();
      while (x.next() != XMLStreamConstants.END_DOCUMENT && !x.isEndOf(depth)) {
        if (x.isStart("ph")) {
          placeholder = x.attr("type") == null ? "obj" : x.attr("type");
        } else if (x.isStart("p")) {
          String p = paragraph(x);
          held += p.length();
          out.checkRoom(held);
          paragraphs.add(p);
        } else if (x.isStart("spPr") || x.isStart("style") || x.isStart("bodyPr") || x.isStart("lstStyle")) {
          x.skip();
        }
      }
      return new Text(placeholder, paragraphs);
    }

    /** The DrawingML paragraph just started: its runs' and fields' text, a line break as a new line. */
    private String paragraph(OfficeXml x) throws XMLStreamException, MalformedRecordException,
        ExtractedDocument.TooCostly, ExtractedDocument.TooLarge {
      int depth = x.depth();
      StringBuilder text = new StringBuilder();
      while (x.next() != XMLStreamConstants.END_DOCUMENT && !x.isEndOf(depth)) {
        if (x.isStart("t")) {
          x.text(text, out.room() - held);
        } else if (x.isStart("br")) {
          text.append('\n');
        } else if (x.isStart("rPr") || x.isStart("pPr") || x.isStart("endParaRPr")) {
          x.skip();
        }
      }
      return text.toString();
    }

    /** The graphic frame just started: a table's text, if it holds one. */
    private void frame(OfficeXml x) throws XMLStreamException, MalformedRecordException,
        ExtractedDocument.TooCostly, ExtractedDocument.TooLarge {
      int depth = x.depth();
      List<List<String>> rows = new ArrayList<>();
      List<String> row = null;
      StringBuilder cell = null;
      while (x.next() != XMLStreamConstants.END_DOCUMENT && !x.isEndOf(depth)) {
        if (x.isStart("tr")) {
          row = new ArrayList<>();
          rows.add(row);
        } else if (x.isStart("tc") && row != null) {
          cell = new StringBuilder();
          int tc = x.depth();
          while (x.next() != XMLStreamConstants.END_DOCUMENT && !x.isEndOf(tc)) {
            if (x.isStart("p")) {
              String p = paragraph(x);
              cell.append(cell.isEmpty() ? "" : "\n").append(p);
              out.checkRoom(held + cell.length());
            } else if (x.isStart("tcPr")) {
              x.skip();
            }
          }
          held += cell.length();
          row.add(cell.toString());
        } else if (x.isStart("nvGraphicFramePr") || x.isStart("xfrm") || x.isStart("tblPr")
            || x.isStart("tblGrid")) {
          x.skip();
        }
      }
      if (!rows.isEmpty()) {
        items.add(new Table(rows));
      }
    }

    void emit(ExtractedDocument out) throws ExtractedDocument.TooLarge {
      for (Object item : items) {
        switch (item) {
          case Text t -> {
            for (String p : t.paragraphs()) {
              out.paragraph(p);
            }
          }
          case Table t -> out.table(t.rows());
          default -> throw new IllegalStateException(String.valueOf(item));
        }
      }
    }

    /** Whether a body placeholder (a notes page's notes) has text. */
    boolean hasBodyText() {
      return items.stream().anyMatch(i -> i instanceof Text t && "body".equals(t.placeholder())
          && t.paragraphs().stream().anyMatch(p -> !p.isBlank()));
    }

    void emitBody(ExtractedDocument out) throws ExtractedDocument.TooLarge {
      for (Object item : items) {
        if (item instanceof Text t && "body".equals(t.placeholder())) {
          for (String p : t.paragraphs()) {
            out.paragraph(p);
          }
        }
      }
    }
  }
}
