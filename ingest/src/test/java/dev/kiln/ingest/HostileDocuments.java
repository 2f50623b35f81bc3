package dev.kiln.ingest;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.PDResources;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.apache.pdfbox.pdmodel.graphics.form.PDFormXObject;

/**
 * Hostile Office and PDF files, written byte by byte with {@code java.util.zip} (Office) or PDFBox (PDF)
 * from a real fixture of {@link DocumentFixtures}: each is small on disk and costs a naive reader a heap
 * or minutes of CPU. Also a large honest DOCX, to measure what reading one costs.
 */
public final class HostileDocuments {
  private HostileDocuments() {}

  private static final String W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
  private static final String BODY_START = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><w:document xmlns:w=\""
      + W + "\"><w:body>";
  private static final String BODY_END = "</w:body></w:document>";
  /** A paragraph as Word writes one: a formatted run (bold, colour, size, font) around its text. */
  private static final String RUN_START = "<w:p><w:pPr><w:spacing w:after=\"120\" w:line=\"276\"/></w:pPr><w:r>"
      + "<w:rPr><w:rFonts w:ascii=\"Calibri\" w:hAnsi=\"Calibri\"/><w:b/><w:color w:val=\"1F3864\"/>"
      + "<w:sz w:val=\"24\"/></w:rPr><w:t xml:space=\"preserve\">";

  /** Writes a part's bytes as they are produced, so a part of many megabytes is never held whole. */
  @FunctionalInterface
  public interface PartWriter {
    void write(Writer out) throws IOException;
  }

  /**
   * A DOCX whose main part is not {@code word/document.xml} but {@code word/body.bin}, as the package
   * allows: {@code [Content_Types].xml} gives the new name the main document's content type (an
   * override) and {@code _rels/.rels} points at it. The part holds about {@code markupBytes} of empty
   * paragraphs and then {@code text} — a name that ends in {@code .xml} counts for nothing.
   */
  public static Path renamedMainPart(Path file, long markupBytes, String text) throws IOException {
    Path plain = DocumentFixtures.docx(file.resolveSibling(file.getFileName() + ".plain.docx"), "Renamed", "",
        "placeholder");
    Map<String, Object> parts = read(plain);
    Files.delete(plain);
    parts.remove("word/document.xml");
    Object rels = parts.remove("word/_rels/document.xml.rels");
    parts.put("word/_rels/body.bin.rels", rels);
    parts.put("[Content_Types].xml", text(parts, "[Content_Types].xml").replace("/word/document.xml", "/word/body.bin"));
    parts.put("_rels/.rels", text(parts, "_rels/.rels").replace("word/document.xml", "word/body.bin"));
    parts.put("word/body.bin", (PartWriter) out -> {
      out.write(BODY_START);
      // Empty paragraphs with revision ids (w:rsidR), as Word writes them: markup that does not compress
      // a hundredfold, so no inflate-ratio check takes it for a zip bomb.
      Random random = new Random(markupBytes);
      for (long n = 0; n < markupBytes; ) {
        String empty = String.format("<w:p w:rsidR=\"%08X\" w:rsidRDefault=\"%08X\"><w:pPr><w:spacing w:after=\"0\"/>"
            + "</w:pPr></w:p>", random.nextInt(), random.nextInt());
        out.write(empty);
        n += empty.length();
      }
      out.write("<w:p><w:r><w:t>" + text + "</w:t></w:r></w:p>");
      out.write(BODY_END);
    });
    return zip(file, parts);
  }

  /**
   * A DOCX whose {@code word/document.xml} inflates to {@code inflatedBytes} of paragraphs while the
   * ZIP's central directory declares it {@code declaredBytes} long: the declared size is what a reader
   * that trusts it checks against its limits.
   */
  public static Path forgedSizeDocx(Path file, long inflatedBytes, int declaredBytes) throws IOException {
    Map<String, Object> parts = read(DocumentFixtures.docx(file, "Bomb", "", "placeholder"));
    parts.put("word/document.xml", (PartWriter) out -> {
      out.write(BODY_START);
      StringBuilder p = new StringBuilder();
      for (long n = 0, i = 0; n < inflatedBytes; i++) {
        p.setLength(0);
        p.append("<w:p><w:r><w:t>row ").append(i).append("</w:t></w:r></w:p>");
        out.append(p);
        n += p.length();
      }
      out.write(BODY_END);
    });
    zip(file, parts);
    forgeDeclaredSize(file, "word/document.xml", declaredBytes);
    return file;
  }

  /** A DOCX whose body is {@code depth} tables, each in the one cell of the one before. */
  public static Path nestedTablesDocx(Path file, int depth) throws IOException {
    Map<String, Object> parts = read(DocumentFixtures.docx(file, "Nested", "", "placeholder"));
    parts.put("word/document.xml", (PartWriter) out -> {
      out.write(BODY_START);
      Random random = new Random(depth);
      for (int i = 0; i < depth; i++) {
        // A caption of its own per level, so the part does not compress a thousandfold.
        out.write("<w:tbl><w:tblPr><w:tblCaption w:val=\"" + Long.toHexString(random.nextLong())
            + "\"/></w:tblPr><w:tr><w:tc>");
      }
      out.write("<w:p><w:r><w:t>the innermost cell</w:t></w:r></w:p>");
      for (int i = 0; i < depth; i++) {
        out.write("</w:tc></w:tr></w:tbl>");
      }
      out.write(BODY_END);
    });
    return zip(file, parts);
  }

  /**
   * An honest DOCX as Word writes a long report: {@code paragraphs} paragraphs of about 60 characters,
   * each in a formatted run (the XML is about five times the text), and after it {@code emptyRuns}
   * formatted runs without text, as editing leaves them behind (each adds 200 bytes of markup).
   */
  public static Path longDocx(Path file, int paragraphs, int emptyRuns) throws IOException {
    Map<String, Object> parts = read(DocumentFixtures.docx(file, "Long report", "", "placeholder"));
    String empty = "<w:r w:rsidR=\"00C4E1F2\"><w:rPr><w:rFonts w:ascii=\"Calibri\" w:hAnsi=\"Calibri\"/><w:i/>"
        + "<w:color w:val=\"1F3864\"/><w:sz w:val=\"24\"/><w:lang w:val=\"en-GB\"/></w:rPr></w:r>";
    parts.put("word/document.xml", (PartWriter) out -> {
      out.write(BODY_START);
      for (int i = 0; i < paragraphs; i++) {
        out.write(RUN_START);
        out.write("Paragraph " + i + " of the long report on kiln firing schedules.");
        out.write("</w:t></w:r>");
        for (int r = 0; r < emptyRuns; r++) {
          out.write(empty);
        }
        out.write("</w:p>");
      }
      out.write(BODY_END);
    });
    return zip(file, parts);
  }

  /**
   * A PPTX of {@code slides} slides, each titled {@code Slide title N} with a body of {@code bodyChars}
   * characters: the one slide of a {@link DocumentFixtures#pptx} deck, cloned.
   */
  public static Path largeDeck(Path file, int slides, int bodyChars) throws IOException {
    Path one = DocumentFixtures.pptx(file.resolveSibling(file.getFileName() + ".one.pptx"), "Large deck", "",
        "TITLE-MARK", "BODY-MARK");
    Map<String, Object> parts = read(one);
    Files.delete(one);
    String slide = text(parts, "ppt/slides/slide1.xml");
    byte[] slideRels = (byte[]) parts.get("ppt/slides/_rels/slide1.xml.rels");
    String body = "Glaze notes and firing schedules for the kiln. ".repeat(bodyChars / 47 + 1).substring(0, bodyChars);
    StringBuilder types = new StringBuilder();
    StringBuilder rels = new StringBuilder();
    StringBuilder ids = new StringBuilder();
    for (int i = 1; i <= slides; i++) {
      parts.put("ppt/slides/slide" + i + ".xml", slide.replace("TITLE-MARK", "Slide title " + i)
          .replace("BODY-MARK", body).getBytes(StandardCharsets.UTF_8));
      parts.put("ppt/slides/_rels/slide" + i + ".xml.rels", slideRels);
      if (i > 1) {
        types.append("<Override ContentType=\"application/vnd.openxmlformats-officedocument.presentationml.slide+xml\""
            + " PartName=\"/ppt/slides/slide").append(i).append(".xml\"/>");
      }
      rels.append("<Relationship Id=\"rIdS").append(i).append("\" Target=\"slides/slide").append(i)
          .append(".xml\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide\"/>");
      ids.append("<p:sldId id=\"").append(255 + i).append("\" r:id=\"rIdS").append(i).append("\"/>");
    }
    parts.put("[Content_Types].xml", text(parts, "[Content_Types].xml").replace("</Types>", types + "</Types>"));
    String presRels = text(parts, "ppt/_rels/presentation.xml.rels")
        .replaceAll("<Relationship Id=\"(rId\\d+)\" Target=\"slides/slide1.xml\"[^>]*/>", "");
    parts.put("ppt/_rels/presentation.xml.rels", presRels.replace("</Relationships>", rels + "</Relationships>"));
    parts.put("ppt/presentation.xml", text(parts, "ppt/presentation.xml")
        .replaceAll("<p:sldIdLst>.*</p:sldIdLst>", "<p:sldIdLst>" + ids + "</p:sldIdLst>"));
    return zip(file, parts);
  }

  /**
   * A one-page PDF of 1 KB or so whose page draws form {@code depth}, which draws form {@code depth-1}
   * {@code fanout} times, and so on down to form 1, which shows one word: the page shows
   * {@code fanout^depth} words.
   */
  public static Path nestedFormsPdf(Path file, int depth, int fanout) throws IOException {
    try (PDDocument doc = new PDDocument()) {
      PDPage page = new PDPage();
      doc.addPage(page);
      PDResources fonts = new PDResources();
      COSName font = fonts.add(new PDType1Font(Standard14Fonts.FontName.HELVETICA));
      PDFormXObject form = form(doc, fonts, "BT /" + font.getName() + " 12 Tf 72 720 Td (kiln) Tj ET\n");
      for (int level = 2; level <= depth; level++) {
        PDResources r = new PDResources();
        COSName inner = r.add(form);
        form = form(doc, r, ("/" + inner.getName() + " Do\n").repeat(fanout));
      }
      page.setResources(new PDResources());
      try (PDPageContentStream s = new PDPageContentStream(doc, page)) {
        s.drawForm(form);
      }
      doc.save(file.toFile());
    }
    return file;
  }

  /** A one-page PDF whose page draws a form that shows one word and then draws itself {@code times} times. */
  public static Path selfDrawingFormPdf(Path file, int times) throws IOException {
    try (PDDocument doc = new PDDocument()) {
      PDPage page = new PDPage();
      doc.addPage(page);
      PDResources r = new PDResources();
      COSName font = r.add(new PDType1Font(Standard14Fonts.FontName.HELVETICA));
      PDFormXObject form = new PDFormXObject(doc);
      COSName self = r.add(form);
      form(form, r, "BT /" + font.getName() + " 12 Tf 72 720 Td (kiln) Tj ET\n"
          + ("/" + self.getName() + " Do\n").repeat(times));
      page.setResources(new PDResources());
      try (PDPageContentStream s = new PDPageContentStream(doc, page)) {
        s.drawForm(form);
      }
      doc.save(file.toFile());
    }
    return file;
  }

  private static PDFormXObject form(PDDocument doc, PDResources resources, String content) throws IOException {
    return form(new PDFormXObject(doc), resources, content);
  }

  private static PDFormXObject form(PDFormXObject form, PDResources resources, String content) throws IOException {
    form.setBBox(new PDRectangle(612, 792));
    form.setResources(resources);
    try (OutputStream out = form.getContentStream().createOutputStream(COSName.FLATE_DECODE)) {
      out.write(content.getBytes(StandardCharsets.US_ASCII));
    }
    return form;
  }

  /** Every entry of a (small) ZIP package, by name, in order. */
  static Map<String, Object> read(Path zip) throws IOException {
    Map<String, Object> parts = new LinkedHashMap<>();
    try (ZipFile z = new ZipFile(zip.toFile())) {
      for (Enumeration<? extends ZipEntry> e = z.entries(); e.hasMoreElements(); ) {
        ZipEntry entry = e.nextElement();
        try (InputStream in = z.getInputStream(entry)) {
          parts.put(entry.getName(), in.readAllBytes());
        }
      }
    }
    return parts;
  }

  private static String text(Map<String, Object> parts, String name) {
    return new String((byte[]) parts.get(name), StandardCharsets.UTF_8);
  }

  /** Writes the parts (bytes, a string or a {@link PartWriter}) as a ZIP package. */
  static Path zip(Path file, Map<String, Object> parts) throws IOException {
    try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
      zip.setLevel(Deflater.BEST_SPEED);
      for (Map.Entry<String, Object> part : parts.entrySet()) {
        zip.putNextEntry(new ZipEntry(part.getKey()));
        switch (part.getValue()) {
          case byte[] bytes -> zip.write(bytes);
          case String s -> zip.write(s.getBytes(StandardCharsets.UTF_8));
          case PartWriter w -> {
            // Flushed, never closed: closing would close the ZIP stream under it.
            Writer out = new BufferedWriter(new OutputStreamWriter(zip, StandardCharsets.UTF_8), 1 << 16);
            w.write(out);
            out.flush();
          }
          default -> throw new IllegalArgumentException(part.getKey());
        }
        zip.closeEntry();
      }
    }
    return file;
  }

  /**
   * Rewrites the uncompressed size the ZIP's central directory records for {@code name}: the entry's
   * data, and the size its local data descriptor gives, stay what they were.
   */
  static void forgeDeclaredSize(Path file, String name, int declared) throws IOException {
    byte[] zip = Files.readAllBytes(file);
    ByteBuffer b = ByteBuffer.wrap(zip).order(ByteOrder.LITTLE_ENDIAN);
    int end = zip.length - 22;
    while (b.getInt(end) != 0x06054b50) {
      end--;
    }
    int at = b.getInt(end + 16);
    byte[] wanted = name.getBytes(StandardCharsets.UTF_8);
    for (int i = 0, n = b.getShort(end + 10) & 0xffff; i < n; i++) {
      int nameLength = b.getShort(at + 28) & 0xffff;
      byte[] entryName = Arrays.copyOfRange(zip, at + 46, at + 46 + nameLength);
      if (Arrays.equals(entryName, wanted)) {
        b.putInt(at + 24, declared);
        Files.write(file, zip);
        return;
      }
      at += 46 + nameLength + (b.getShort(at + 30) & 0xffff) + (b.getShort(at + 32) & 0xffff);
    }
    throw new IllegalArgumentException("no entry " + name + " in " + file);
  }
}
