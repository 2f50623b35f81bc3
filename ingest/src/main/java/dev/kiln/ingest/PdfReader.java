package dev.kiln.ingest;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.contentstream.operator.Operator;
import org.apache.pdfbox.cos.COSBase;
import org.apache.pdfbox.cos.COSDictionary;
import org.apache.pdfbox.io.IOUtils;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDDocumentInformation;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.encryption.InvalidPasswordException;
import org.apache.pdfbox.pdmodel.font.PDType3CharProc;
import org.apache.pdfbox.pdmodel.graphics.form.PDFormXObject;
import org.apache.pdfbox.pdmodel.graphics.form.PDTransparencyGroup;
import org.apache.pdfbox.pdmodel.interactive.documentnavigation.outline.PDDocumentOutline;
import org.apache.pdfbox.pdmodel.interactive.documentnavigation.outline.PDOutlineItem;
import org.apache.pdfbox.pdmodel.interactive.documentnavigation.outline.PDOutlineNode;
import org.apache.pdfbox.text.PDFTextStripper;
import org.apache.pdfbox.text.TextPosition;
import org.apache.pdfbox.util.Matrix;

/**
 * The text of a PDF file with PDFBox, page by page. Every page with text is a section headed {@code Page
 * N} (N from 1, the page's position in the file); bookmarks (the outline) that point at a page become
 * headings above it, so a chunk's breadcrumb reads {@code Chapter > Section > Page N}. Document
 * properties: title, author, created and modified dates, page count.
 *
 * <p>PDFBox reads the file by random access and parses objects as pages need them; decoded streams are
 * cached in temporary files, and the extracted text stops at the record limit. So a large PDF is never
 * held whole. Problems: a file without {@code %%EOF} near its end (truncated) or that PDFBox cannot
 * parse is {@code corrupt_document}; one that needs a password to open is {@code encrypted} (a PDF
 * encrypted with an empty user password opens, as in every viewer, and is read); one whose pages yield
 * no text at all (scanned pages, images only; Kiln does no OCR) is {@code no_text_layer}.
 *
 * <p>The work is bounded too, since a few kilobytes of form XObjects that each draw the next several
 * times multiply into billions of operations. A page's work is counted in operators run, a form XObject
 * drawn counting as {@value #FORM_WORK} (PDFBox parses its content stream again at every draw); the
 * work its content spells out counts each form's content once, however often it is drawn. Past {@value
 * #FREE_WORK} units, a page may run at most {@value #AMPLIFICATION} times what it spells out: a page
 * that draws a marker form 100,000 times spells out every draw and passes, nested forms that each draw
 * the next four times do not. A form that draws itself (directly or through others) is not drawn again,
 * as viewers do, and the document's deadline ({@code ingest.max-document-millis}) is checked every
 * {@value #DEADLINE_EVERY} operators and at every page's end. Past either the document is {@code
 * too_costly}.
 */
final class PdfReader implements DocumentReader {
  /** The PDF specification wants {@code %%EOF} within the last 1024 bytes; viewers accept no less. */
  private static final int TRAILER_WINDOW = 1024;
  /** Outline entries beyond this many are ignored (a bookmark per paragraph helps no breadcrumb). */
  private static final int MAX_OUTLINE_ITEMS = 10_000;
  /** Outline depth kept: levels 1..5; pages are headings of level 6, below every bookmark. */
  private static final int MAX_OUTLINE_DEPTH = 5;
  /** The work of drawing a form XObject, in operators: about what PDFBox spends to parse and set one up. */
  static final long FORM_WORK = 100;
  /** Work any page may do whatever its content spells out: a dense page of text runs a few thousand. */
  static final long FREE_WORK = 1_000_000;
  /** How many times the work its content spells out a page may run, past {@link #FREE_WORK}. */
  static final long AMPLIFICATION = 100;
  /** Operators between two looks at the deadline. */
  static final int DEADLINE_EVERY = 1024;
  /** PDFBox ends a paragraph with an empty line (see {@link Stripper}). */
  private static final Pattern PARAGRAPH_BREAK = Pattern.compile("\\n\\s*\\n");

  @Override
  public void read(File file, ExtractedDocument out) throws MalformedRecordException, IOException {
    checkEnvelope(file);
    PDDocument doc;
    try {
      doc = Loader.loadPDF(file, "", null, null, IOUtils.createTempFileOnlyStreamCache());
    } catch (InvalidPasswordException e) {
      throw new MalformedRecordException(QuarantineReason.ENCRYPTED, "PDF needs a password to open");
    } catch (IOException | RuntimeException e) {
      throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT, "PDF cannot be parsed: " + e);
    }
    try (doc) {
      Stripper stripper = null;
      try {
        properties(doc, out);
        stripper = new Stripper(out, outline(doc));
        stripper.writeText(doc, stripper.pageWriter());
      } catch (Overflow | GlyphOverflow e) {
        throw new MalformedRecordException(QuarantineReason.TOO_LARGE, e.getMessage());
      } catch (Costly e) {
        throw new MalformedRecordException(QuarantineReason.TOO_COSTLY,
            e.getMessage() + " (page " + stripper.page() + ")");
      } catch (IOException | RuntimeException e) {
        // PDFBox parses objects as they are needed: damage anywhere surfaces here, not at load.
        throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT, "PDF text cannot be extracted"
            + (stripper == null ? "" : " at page " + stripper.page()) + ": " + e);
      }
    }
    if (!out.hasText()) {
      throw new MalformedRecordException(QuarantineReason.NO_TEXT_LAYER,
          "no extractable text in " + out.properties().getOrDefault("pages", "0")
              + " pages (scanned or image-only; no OCR)");
    }
  }

  /** A PDF starts with {@code %PDF-} and ends with {@code %%EOF}: anything else is not a whole PDF. */
  private static void checkEnvelope(File file) throws IOException, MalformedRecordException {
    try (RandomAccessFile f = new RandomAccessFile(file, "r")) {
      long length = f.length();
      byte[] head = new byte[(int) Math.min(TRAILER_WINDOW, length)];
      f.readFully(head);
      if (!new String(head, StandardCharsets.ISO_8859_1).contains("%PDF-")) {
        throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT, "no %PDF- header: not a PDF");
      }
      byte[] tail = new byte[(int) Math.min(TRAILER_WINDOW, length)];
      f.seek(length - tail.length);
      f.readFully(tail);
      if (!new String(tail, StandardCharsets.ISO_8859_1).contains("%%EOF")) {
        throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT,
            "no %%EOF in the last " + TRAILER_WINDOW + " bytes: the PDF is truncated");
      }
    }
  }

  private static void properties(PDDocument doc, ExtractedDocument out) {
    PDDocumentInformation info = doc.getDocumentInformation();
    out.title(info.getTitle());
    out.property(AUTHOR, info.getAuthor());
    out.property(CREATED, instant(info.getCreationDate()));
    out.property(DOC_MODIFIED, instant(info.getModificationDate()));
    out.property(PAGES, doc.getNumberOfPages());
  }

  private static Instant instant(Calendar c) {
    return c == null ? null : c.toInstant();
  }

  /** Bookmark headings by the page (0-based) they point at, in outline order. */
  private static Map<Integer, List<Heading>> outline(PDDocument doc) {
    PDDocumentOutline outline = doc.getDocumentCatalog().getDocumentOutline();
    Map<Integer, List<Heading>> byPage = new HashMap<>();
    if (outline == null || !outline.hasChildren()) {
      return byPage;
    }
    // Page dictionaries to indexes once: PDPageTree.indexOf per bookmark would walk the tree each time.
    IdentityHashMap<COSDictionary, Integer> pageIndex = new IdentityHashMap<>();
    int i = 0;
    for (PDPage p : doc.getPages()) {
      pageIndex.put(p.getCOSObject(), i++);
    }
    collect(doc, outline, 1, pageIndex, byPage, new int[] {0});
    return byPage;
  }

  private static void collect(PDDocument doc, PDOutlineNode node, int level,
      IdentityHashMap<COSDictionary, Integer> pageIndex,
      Map<Integer, List<Heading>> byPage, int[] seen) {
    for (PDOutlineItem item : node.children()) {
      if (++seen[0] > MAX_OUTLINE_ITEMS) {
        return;
      }
      Integer page = null;
      try {
        PDPage target = item.findDestinationPage(doc);
        page = target == null ? null : pageIndex.get(target.getCOSObject());
      } catch (IOException | RuntimeException e) {
        // A bookmark with a broken destination names no page; the text is still read.
      }
      String title = item.getTitle();
      if (page != null && title != null && !title.isBlank()) {
        byPage.computeIfAbsent(page, k -> new ArrayList<>()).add(new Heading(level, title));
      }
      if (level < MAX_OUTLINE_DEPTH) {
        collect(doc, item, level + 1, pageIndex, byPage, seen);
      }
    }
  }

  private record Heading(int level, String title) {}

  /** {@link ExtractedDocument.TooLarge} on its way out of PDFBox, which only lets IOExceptions through. */
  private static final class Overflow extends IOException {
    private static final long serialVersionUID = 1L;

    Overflow(ExtractedDocument.TooLarge cause) {
      super(cause.getMessage(), cause);
    }
  }

  /** Too many glyphs on one page; unchecked because PDFBox's glyph callback declares no exception. */
  private static final class GlyphOverflow extends RuntimeException {
    private static final long serialVersionUID = 1L;

    GlyphOverflow(long budget) {
      super("a page has more than " + budget + " glyphs: text exceeds ingest.max-record-bytes");
    }
  }

  /**
   * The work budget spent ({@link ExtractedDocument.TooCostly} on its way out of PDFBox, which lets only
   * IOExceptions through its operator callbacks and swallows those that a drawn form throws).
   */
  private static final class Costly extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Costly(String message) {
      super(message);
    }
  }

  /** Collects each page's text and hands it to the document when the page ends. */
  private static final class Stripper extends PDFTextStripper {
    private final ExtractedDocument out;
    private final Map<Integer, List<Heading>> outline;
    private final StringBuilder pageText = new StringBuilder();
    /** The forms being drawn, outermost first: one of them drawn again would draw itself forever. */
    private final Set<COSBase> drawing = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The forms drawn on this page so far: a form's content is spelled out at its first draw only. */
    private final Set<COSBase> drawn = Collections.newSetFromMap(new IdentityHashMap<>());
    private long pageGlyphs;
    /** The work run on this page, and the part of it its content spells out. */
    private long pageWork;
    private long pageSpelled;
    /** Whether the content stream being run counts as spelled out: the page's own, a form's first draw. */
    private boolean spelling = true;
    private long operators;

    Stripper(ExtractedDocument out, Map<Integer, List<Heading>> outline) {
      this.out = out;
      this.outline = outline;
      // A paragraph break is an empty line (line separator + this), so paragraphs can be told apart.
      setParagraphEnd("\n");
    }

    int page() {
      return getCurrentPageNo();
    }

    /** Where PDFBox writes a page's text: the page's buffer, handed on whole at the page's end. */
    Writer pageWriter() {
      return new Writer() {
        @Override
        public void write(char[] buf, int off, int len) {
          pageText.append(buf, off, len);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
    }

    @Override
    protected void startPage(PDPage page) {
      pageText.setLength(0);
      pageGlyphs = 0;
      pageWork = 0;
      pageSpelled = 0;
      drawn.clear();
      spelling = true;
    }

    @Override
    protected void processOperator(Operator operator, List<COSBase> operands) throws IOException {
      work(1);
      if (++operators % DEADLINE_EVERY == 0) {
        deadline();
      }
      super.processOperator(operator, operands);
    }

    /** A Type 3 glyph's procedure runs for each glyph the content shows: spelled out by that text. */
    @Override
    protected void processType3Stream(PDType3CharProc charProc, Matrix textRenderingMatrix) throws IOException {
      boolean outer = spelling;
      spelling = true;
      try {
        super.processType3Stream(charProc, textRenderingMatrix);
      } finally {
        spelling = outer;
      }
    }

    private void work(long units) {
      pageWork += units;
      if (spelling) {
        pageSpelled += units;
      }
      if (pageWork > FREE_WORK && pageWork > AMPLIFICATION * pageSpelled) {
        throw new Costly("a page's form XObjects multiply its work: it ran " + pageWork + " operators' worth for the "
            + pageSpelled + " its content spells out (at most " + AMPLIFICATION + " times that, past " + FREE_WORK + ")");
      }
    }

    @Override
    public void showForm(PDFormXObject form) throws IOException {
      draw(form, () -> super.showForm(form));
    }

    @Override
    public void showTransparencyGroup(PDTransparencyGroup group) throws IOException {
      draw(group, () -> super.showTransparencyGroup(group));
    }

    private interface Drawing {
      void run() throws IOException;
    }

    /**
     * Draws a form unless it is already being drawn, counting the draw as work (spelled out if the
     * content that draws it is), and its content as spelled out at its first draw on the page only.
     */
    private void draw(PDFormXObject form, Drawing draw) throws IOException {
      COSBase self = form.getCOSObject();
      if (drawing.contains(self)) {
        return; // a form that draws itself: drawn once, as viewers do
      }
      work(FORM_WORK);
      boolean outer = spelling;
      drawing.add(self);
      spelling = drawn.add(self);
      try {
        draw.run();
      } finally {
        spelling = outer;
        drawing.remove(self);
      }
    }

    private void deadline() {
      try {
        out.checkDeadline();
      } catch (ExtractedDocument.TooCostly e) {
        throw new Costly(e.getMessage());
      }
    }

    @Override
    protected void processTextPosition(TextPosition text) {
      // PDFBox holds a page's glyphs until the page ends: a page with more glyphs than the whole
      // document may have characters is refused before it fills the heap.
      if (++pageGlyphs > out.budget()) {
        throw new GlyphOverflow(out.budget());
      }
      super.processTextPosition(text);
    }

    @Override
    protected void endPage(PDPage page) throws IOException {
      deadline();
      int number = getCurrentPageNo();
      try {
        for (Heading h : outline.getOrDefault(number - 1, List.of())) {
          out.label(h.level(), h.title());
        }
        String text = pageText.toString();
        if (!text.isBlank()) {
          out.label(MAX_OUTLINE_DEPTH + 1, "Page " + number);
          for (String paragraph : PARAGRAPH_BREAK.split(text, -1)) {
            out.paragraph(paragraph);
          }
        }
      } catch (ExtractedDocument.TooLarge e) {
        throw new Overflow(e);
      }
      pageText.setLength(0);
    }
  }
}
