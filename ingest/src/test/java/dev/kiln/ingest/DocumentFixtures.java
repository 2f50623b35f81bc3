package dev.kiln.ingest;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Calendar;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.TimeZone;
import java.util.regex.Pattern;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDDocumentInformation;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.encryption.AccessPermission;
import org.apache.pdfbox.pdmodel.encryption.StandardProtectionPolicy;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.apache.pdfbox.pdmodel.graphics.image.LosslessFactory;
import org.apache.pdfbox.pdmodel.graphics.image.PDImageXObject;
import org.apache.pdfbox.pdmodel.interactive.documentnavigation.outline.PDDocumentOutline;
import org.apache.pdfbox.pdmodel.interactive.documentnavigation.outline.PDOutlineItem;
import org.apache.poi.ooxml.POIXMLDocument;
import org.apache.poi.ooxml.POIXMLProperties;
import org.apache.poi.poifs.crypt.EncryptionInfo;
import org.apache.poi.poifs.crypt.EncryptionMode;
import org.apache.poi.poifs.crypt.Encryptor;
import org.apache.poi.poifs.filesystem.POIFSFileSystem;
import org.apache.poi.sl.usermodel.Placeholder;
import org.apache.poi.xslf.usermodel.SlideLayout;
import org.apache.poi.xslf.usermodel.XMLSlideShow;
import org.apache.poi.xslf.usermodel.XSLFNotes;
import org.apache.poi.xslf.usermodel.XSLFSlide;
import org.apache.poi.xslf.usermodel.XSLFSlideLayout;
import org.apache.poi.xslf.usermodel.XSLFTable;
import org.apache.poi.xslf.usermodel.XSLFTableRow;
import org.apache.poi.xslf.usermodel.XSLFTextShape;
import org.apache.poi.xwpf.usermodel.XWPFDocument;
import org.apache.poi.xwpf.usermodel.XWPFParagraph;
import org.apache.poi.xwpf.usermodel.XWPFStyle;
import org.apache.poi.xwpf.usermodel.XWPFStyles;
import org.apache.poi.xwpf.usermodel.XWPFTable;
import org.apache.poi.xwpf.usermodel.XWPFTableRow;
import org.openxmlformats.schemas.wordprocessingml.x2006.main.CTString;
import org.openxmlformats.schemas.wordprocessingml.x2006.main.CTStyle;
import org.openxmlformats.schemas.wordprocessingml.x2006.main.STStyleType;

/**
 * Writes real PDF, DOCX and PPTX files with PDFBox and POI for the extraction tests: documents with
 * pages, bookmarks, headings, slides, tables and properties, and the hostile ones — password-protected,
 * image-only, truncated.
 */
public final class DocumentFixtures {
  private DocumentFixtures() {}

  /** 2026-01-05T10:00:00Z, the creation date every fixture carries. */
  public static final Date CREATED = date(2026, Calendar.JANUARY, 5);
  public static final String PASSWORD = "kiln-secret";
  private static final Pattern CELL = Pattern.compile(" \\| ");
  private static final Pattern LINE = Pattern.compile("\n");

  private static Date date(int year, int month, int day) {
    Calendar c = Calendar.getInstance(TimeZone.getTimeZone("UTC"));
    c.clear();
    c.set(year, month, day, 10, 0, 0);
    return c.getTime();
  }

  /**
   * A PDF with one page per entry of {@code pages}; in a page's text a blank line separates paragraphs.
   * {@code bookmarks} holds (title, 0-based page) pairs, top-level outline items.
   */
  public static Path pdf(Path file, String title, String author, List<String> pages, Object... bookmarks)
      throws IOException {
    try (PDDocument doc = new PDDocument()) {
      writePages(doc, pages);
      info(doc, title, author);
      if (bookmarks.length > 0) {
        PDDocumentOutline outline = new PDDocumentOutline();
        for (int i = 0; i < bookmarks.length; i += 2) {
          PDOutlineItem item = new PDOutlineItem();
          item.setTitle((String) bookmarks[i]);
          item.setDestination(doc.getPage((Integer) bookmarks[i + 1]));
          outline.addLast(item);
        }
        doc.getDocumentCatalog().setDocumentOutline(outline);
      }
      doc.save(dirs(file).toFile());
    }
    return file;
  }

  /** A PDF that opens only with {@link #PASSWORD}. */
  public static Path encryptedPdf(Path file, String text) throws IOException {
    return encryptedPdf(file, text, PASSWORD, new AccessPermission());
  }

  /**
   * An encrypted PDF with the given user password; an empty one opens without asking (the owner password
   * guards only the permissions).
   */
  public static Path encryptedPdf(Path file, String text, String userPassword, AccessPermission permissions)
      throws IOException {
    try (PDDocument doc = new PDDocument()) {
      writePages(doc, List.of(text));
      StandardProtectionPolicy policy = new StandardProtectionPolicy("owner-" + PASSWORD, userPassword,
          permissions);
      policy.setEncryptionKeyLength(128);
      doc.protect(policy);
      doc.save(dirs(file).toFile());
    }
    return file;
  }

  /** A "scanned" PDF: every page is an image with no text layer. */
  public static Path imageOnlyPdf(Path file, int pages) throws IOException {
    try (PDDocument doc = new PDDocument()) {
      BufferedImage scan = new BufferedImage(200, 100, BufferedImage.TYPE_INT_RGB);
      Graphics2D g = scan.createGraphics();
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, 200, 100);
      g.setColor(Color.BLACK);
      g.drawString("scanned words", 20, 50);
      g.dispose();
      PDImageXObject image = LosslessFactory.createFromImage(doc, scan);
      for (int i = 0; i < pages; i++) {
        PDPage page = new PDPage();
        doc.addPage(page);
        try (PDPageContentStream s = new PDPageContentStream(doc, page)) {
          s.drawImage(image, 50, 500, 400, 200);
        }
      }
      info(doc, "Scanned", "Scanner");
      doc.save(dirs(file).toFile());
    }
    return file;
  }

  private static void writePages(PDDocument doc, List<String> pages) throws IOException {
    PDType1Font font = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
    for (String text : pages) {
      PDPage page = new PDPage();
      doc.addPage(page);
      try (PDPageContentStream s = new PDPageContentStream(doc, page)) {
        s.beginText();
        s.setFont(font, 11);
        s.setLeading(14);
        s.newLineAtOffset(50, 740);
        for (String line : LINE.split(text, -1)) {
          if (!line.isEmpty()) {
            s.showText(line);
          }
          s.newLine();
        }
        s.endText();
      }
    }
  }

  private static void info(PDDocument doc, String title, String author) {
    PDDocumentInformation info = doc.getDocumentInformation();
    info.setTitle(title);
    info.setAuthor(author);
    Calendar c = Calendar.getInstance(TimeZone.getTimeZone("UTC"));
    c.setTime(CREATED);
    info.setCreationDate(c);
  }

  /**
   * A DOCX: {@code blocks} are paragraphs, except {@code "# text"} (Heading 1), {@code "## text"}
   * (Heading 2) and {@code "| a | b"} lines (a table; consecutive lines are its rows). Heading 1 uses a
   * localised style id ({@code berschrift1}, as German Word writes it) named {@code heading 1}; Heading
   * 2 has no style definition at all, only the id {@code Heading2}.
   */
  public static Path docx(Path file, String title, String author, String... blocks) throws IOException {
    try (XWPFDocument doc = new XWPFDocument()) {
      XWPFStyles styles = doc.createStyles();
      styles.addStyle(new XWPFStyle(style("berschrift1", "heading 1")));
      properties(doc, title, author);
      XWPFTable table = null;
      for (String b : blocks) {
        if (b.startsWith("| ")) {
          String[] cells = CELL.split(b.substring(2), -1);
          if (table == null) {
            table = doc.createTable(1, cells.length);
            fill(table.getRow(0), cells);
          } else {
            fill(table.createRow(), cells);
          }
          continue;
        }
        table = null;
        XWPFParagraph p = doc.createParagraph();
        if (b.startsWith("## ")) {
          p.setStyle("Heading2");
          p.createRun().setText(b.substring(3));
        } else if (b.startsWith("# ")) {
          p.setStyle("berschrift1");
          p.createRun().setText(b.substring(2));
        } else {
          p.createRun().setText(b);
        }
      }
      save(doc, file);
    }
    return file;
  }

  private static void fill(XWPFTableRow row, String[] cells) {
    for (int i = 0; i < cells.length; i++) {
      (i < row.getTableCells().size() ? row.getCell(i) : row.addNewTableCell()).setText(cells[i]);
    }
  }

  private static CTStyle style(String id, String name) {
    CTStyle s = CTStyle.Factory.newInstance();
    s.setStyleId(id);
    s.setType(STStyleType.PARAGRAPH);
    CTString n = CTString.Factory.newInstance();
    n.setVal(name);
    s.setName(n);
    return s;
  }

  /**
   * A PPTX with one slide per (title, body) pair; a body line starting {@code "notes: "} becomes the
   * slide's speaker notes, and {@code "| a | b"} lines a table.
   */
  public static Path pptx(Path file, String title, String author, String... titleAndBody) throws IOException {
    try (XMLSlideShow show = new XMLSlideShow()) {
      XSLFSlideLayout layout = show.getSlideMasters().get(0).getLayout(SlideLayout.TITLE_AND_CONTENT);
      properties(show, title, author);
      for (int i = 0; i < titleAndBody.length; i += 2) {
        XSLFSlide slide = show.createSlide(layout);
        slide.getPlaceholder(0).setText(titleAndBody[i]);
        XSLFTextShape body = slide.getPlaceholder(1);
        StringBuilder text = new StringBuilder();
        XSLFTable table = null;
        for (String line : LINE.split(titleAndBody[i + 1], -1)) {
          if (line.startsWith("notes: ")) {
            XSLFNotes notes = show.getNotesSlide(slide);
            for (XSLFTextShape s : notes.getPlaceholders()) {
              if (s.getPlaceholder() == Placeholder.BODY) {
                s.setText(line.substring(7));
              }
            }
          } else if (line.startsWith("| ")) {
            if (table == null) {
              table = slide.createTable();
            }
            XSLFTableRow row = table.addRow();
            for (String cell : CELL.split(line.substring(2), -1)) {
              row.addCell().setText(cell);
            }
          } else {
            text.append(text.isEmpty() ? "" : "\n").append(line);
          }
        }
        body.setText(text.toString());
      }
      save(show, file);
    }
    return file;
  }

  private static void properties(POIXMLDocument doc, String title, String author) {
    POIXMLProperties.CoreProperties core = doc.getProperties().getCoreProperties();
    core.setTitle(title);
    core.setCreator(author);
    core.setCreated(Optional.of(CREATED));
  }

  private static void save(POIXMLDocument doc, Path file) throws IOException {
    try (OutputStream out = Files.newOutputStream(dirs(file))) {
      doc.write(out);
    }
  }

  /** An Office file (DOCX or PPTX) encrypted with {@link #PASSWORD} (agile encryption, as Office writes). */
  public static Path encryptOffice(Path plain, Path encrypted) throws Exception {
    try (POIFSFileSystem fs = new POIFSFileSystem()) {
      EncryptionInfo info = new EncryptionInfo(EncryptionMode.agile);
      Encryptor enc = info.getEncryptor();
      enc.confirmPassword(PASSWORD);
      try (OutputStream os = enc.getDataStream(fs)) {
        Files.copy(plain, os);
      }
      try (OutputStream out = Files.newOutputStream(encrypted)) {
        fs.writeFilesystem(out);
      }
    }
    return encrypted;
  }

  private static Path dirs(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    return file;
  }

  /** The first {@code fraction} of a file's bytes, as a copy cut off in transfer would be. */
  public static Path truncated(Path whole, Path cut, double fraction) throws IOException {
    byte[] bytes = Files.readAllBytes(whole);
    Files.write(cut, Arrays.copyOf(bytes, (int) (bytes.length * fraction)));
    return cut;
  }
}
