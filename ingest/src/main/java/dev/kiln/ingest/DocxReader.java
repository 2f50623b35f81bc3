package dev.kiln.ingest;

import java.io.File;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.poi.openxml4j.opc.OPCPackage;
import org.apache.poi.xwpf.usermodel.IBodyElement;
import org.apache.poi.xwpf.usermodel.XWPFDocument;
import org.apache.poi.xwpf.usermodel.XWPFParagraph;
import org.apache.poi.xwpf.usermodel.XWPFSDT;
import org.apache.poi.xwpf.usermodel.XWPFStyle;
import org.apache.poi.xwpf.usermodel.XWPFTable;
import org.apache.poi.xwpf.usermodel.XWPFTableCell;
import org.apache.poi.xwpf.usermodel.XWPFTableRow;
import org.openxmlformats.schemas.wordprocessingml.x2006.main.CTDecimalNumber;
import org.openxmlformats.schemas.wordprocessingml.x2006.main.CTPPr;

/**
 * The text of a DOCX file with POI: the body's paragraphs and tables in order. Paragraphs in Word's
 * heading styles ({@code heading 1}…{@code heading 9}, recognised by the style's name, which Word keeps
 * in English whatever the user's language, or else by its id) or with an outline level become headings,
 * so sections get breadcrumbs as in Markdown; a paragraph in the {@code Title} style titles the document
 * when its properties do not. Headers, footers, footnotes and comments are page furniture and left out.
 *
 * <p>A DOCX has no page numbers until a word processor lays it out, so its chunks carry headings but no
 * pages; the page count Word recorded in the file, when there is one, is the {@code pages} property.
 */
final class DocxReader implements DocumentReader {
  private static final Pattern HEADING = Pattern.compile("heading\\s*([1-9])");

  @Override
  public void read(File file, ExtractedDocument out) throws MalformedRecordException, IOException {
    OPCPackage pkg = OfficeFiles.open(file, out.budget());
    try {
      XWPFDocument doc = new XWPFDocument(pkg);
      OfficeFiles.coreProperties(doc.getProperties(), out);
      out.property(PAGES, doc.getProperties().getExtendedProperties().getPages());
      for (IBodyElement e : doc.getBodyElements()) {
        switch (e) {
          case XWPFParagraph p -> paragraph(doc, p, out);
          case XWPFTable t -> table(t, out);
          case XWPFSDT sdt -> out.paragraph(sdt.getContent().getText());
          default -> { }
        }
      }
    } catch (ExtractedDocument.TooLarge e) {
      throw new MalformedRecordException(QuarantineReason.TOO_LARGE, e.getMessage());
    } catch (IOException | RuntimeException e) {
      // The file is local: a failure to read it is damage. POI parses parts lazily: damage deep in the package surfaces while the text is read.
      throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT, "DOCX cannot be parsed: " + e);
    } finally {
      OfficeFiles.close(pkg);
    }
    if (!out.hasText()) {
      throw new MalformedRecordException(QuarantineReason.EMPTY_TEXT, "DOCX without text");
    }
  }

  private static void paragraph(XWPFDocument doc, XWPFParagraph p, ExtractedDocument out)
      throws ExtractedDocument.TooLarge {
    String text = p.getText();
    if (text == null || text.isBlank()) {
      return;
    }
    String style = styleName(doc, p);
    int level = headingLevel(style, p);
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
  private static String styleName(XWPFDocument doc, XWPFParagraph p) {
    String id = p.getStyleID();
    if (id == null) {
      return "";
    }
    XWPFStyle style = doc.getStyles() == null ? null : doc.getStyles().getStyle(id);
    String name = style == null || style.getName() == null ? id : style.getName();
    return name.toLowerCase(Locale.ROOT);
  }

  /** 1..9 for a heading, else 0: by the style's name, else by the paragraph's own outline level. */
  static int headingLevel(String styleName, XWPFParagraph p) {
    Matcher m = HEADING.matcher(styleName);
    if (m.matches()) {
      return m.group(1).charAt(0) - '0';
    }
    CTPPr ppr = p.getCTP().getPPr();
    CTDecimalNumber outline = ppr == null ? null : ppr.getOutlineLvl();
    BigInteger level = outline == null ? null : outline.getVal();
    // Outline levels 0..8 are heading levels 1..9; 9 is body text.
    return level != null && level.intValue() >= 0 && level.intValue() < 9 ? level.intValue() + 1 : 0;
  }

  private static void table(XWPFTable t, ExtractedDocument out) throws ExtractedDocument.TooLarge {
    List<List<String>> rows = new ArrayList<>();
    for (XWPFTableRow row : t.getRows()) {
      List<String> cells = new ArrayList<>();
      for (XWPFTableCell cell : row.getTableCells()) {
        cells.add(cell.getText());
      }
      rows.add(cells);
    }
    out.table(rows);
  }
}
