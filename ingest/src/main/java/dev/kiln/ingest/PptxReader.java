package dev.kiln.ingest;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.poi.openxml4j.opc.OPCPackage;
import org.apache.poi.sl.usermodel.Placeholder;
import org.apache.poi.xslf.usermodel.XMLSlideShow;
import org.apache.poi.xslf.usermodel.XSLFGroupShape;
import org.apache.poi.xslf.usermodel.XSLFNotes;
import org.apache.poi.xslf.usermodel.XSLFShape;
import org.apache.poi.xslf.usermodel.XSLFSlide;
import org.apache.poi.xslf.usermodel.XSLFTable;
import org.apache.poi.xslf.usermodel.XSLFTableCell;
import org.apache.poi.xslf.usermodel.XSLFTableRow;
import org.apache.poi.xslf.usermodel.XSLFTextParagraph;
import org.apache.poi.xslf.usermodel.XSLFTextShape;

/**
 * The text of a PPTX file with POI, slide by slide. Every slide is a section headed {@code Slide N:
 * <its title>} (or {@code Slide N} without a title), so a chunk's breadcrumb names its slide; the
 * slide's text boxes, grouped shapes and tables follow in drawing order, and its speaker notes as a
 * {@code Notes} subsection. Properties: the package's title, author and dates, and the slide count.
 */
final class PptxReader implements DocumentReader {
  @Override
  public void read(File file, ExtractedDocument out) throws MalformedRecordException, IOException {
    OPCPackage pkg = OfficeFiles.open(file, out.budget());
    try {
      XMLSlideShow show = new XMLSlideShow(pkg);
      OfficeFiles.coreProperties(show.getProperties(), out);
      List<XSLFSlide> slides = show.getSlides();
      out.property(SLIDES, slides.size());
      for (XSLFSlide slide : slides) {
        slide(slide, out);
      }
    } catch (ExtractedDocument.TooLarge e) {
      throw new MalformedRecordException(QuarantineReason.TOO_LARGE, e.getMessage());
    } catch (RuntimeException e) {
      // POI parses parts lazily: damage deep in the package surfaces while the text is read.
      throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT, "PPTX cannot be parsed: " + e);
    } finally {
      OfficeFiles.close(pkg);
    }
    if (!out.hasText()) {
      throw new MalformedRecordException(QuarantineReason.EMPTY_TEXT, "PPTX without text");
    }
  }

  private static void slide(XSLFSlide slide, ExtractedDocument out) throws ExtractedDocument.TooLarge {
    String title = slide.getTitle();
    String number = "Slide " + slide.getSlideNumber();
    boolean titled = title != null && !title.isBlank();
    if (titled) {
      out.heading(1, number + ": " + title.strip().replaceAll("\\s+", " "));
    } else {
      out.label(1, number);
    }
    if (titled && slide.getSlideNumber() == 1) {
      out.title(title); // the first slide's title, when the properties have none
    }
    for (XSLFShape shape : slide.getShapes()) {
      shape(shape, out);
    }
    XSLFNotes notes = slide.getNotes();
    if (notes != null) {
      boolean headed = false;
      for (XSLFShape shape : notes.getShapes()) {
        if (shape instanceof XSLFTextShape t && t.getPlaceholder() == Placeholder.BODY
            && !t.getText().isBlank()) {
          if (!headed) {
            out.label(2, "Notes");
            headed = true;
          }
          paragraphs(t, out);
        }
      }
    }
  }

  private static void shape(XSLFShape shape, ExtractedDocument out) throws ExtractedDocument.TooLarge {
    switch (shape) {
      case XSLFTextShape t when !isTitle(t) -> paragraphs(t, out);
      case XSLFTable table -> table(table, out);
      case XSLFGroupShape group -> {
        for (XSLFShape s : group.getShapes()) {
          shape(s, out);
        }
      }
      default -> { }
    }
  }

  /** The slide's title is its heading already. */
  private static boolean isTitle(XSLFTextShape t) {
    Placeholder p = t.getPlaceholder();
    return p == Placeholder.TITLE || p == Placeholder.CENTERED_TITLE;
  }

  private static void paragraphs(XSLFTextShape t, ExtractedDocument out) throws ExtractedDocument.TooLarge {
    for (XSLFTextParagraph p : t.getTextParagraphs()) {
      out.paragraph(p.getText());
    }
  }

  private static void table(XSLFTable table, ExtractedDocument out) throws ExtractedDocument.TooLarge {
    List<List<String>> rows = new ArrayList<>();
    for (XSLFTableRow row : table.getRows()) {
      List<String> cells = new ArrayList<>();
      for (XSLFTableCell cell : row.getCells()) {
        cells.add(cell.getText());
      }
      rows.add(cells);
    }
    out.table(rows);
  }
}
