package dev.kiln.ingest;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;

/**
 * An Office Open XML package (DOCX, PPTX: a ZIP of XML parts) read part by part as a stream, never
 * whole: its content types, its relationships, and the parts a reader follows them to — by
 * relationship and content type, never by name, so a main part renamed {@code word/body.bin} is found
 * and counted like {@code word/document.xml}.
 *
 * <p>Every byte inflated from any part counts as it streams, against one budget per document: {@link
 * OfficeFiles#XML_PER_TEXT} times the record limit. A part whose directory entry declares more than
 * what is left is refused before it is read; one that inflates past its declared size is a damaged or
 * forged ZIP and refused at the first byte beyond it; past the budget the document is {@code
 * too_large}. So a zip bomb costs at most the budget's worth of inflating, whatever its directory says.
 */
final class OfficePackage implements Closeable {
  /** A relationship from a part (or the package) to a part; {@code target} is the part's name. */
  record Relationship(String id, String type, String target) {
    boolean is(String typeSuffix) {
      return type.endsWith(typeSuffix);
    }
  }

  private final ZipFile zip;
  private final ExtractedDocument out;
  private final long budget;
  private long inflated;
  private Map<String, ZipEntry> byLowerCaseName;
  private Map<String, String> overrides;
  private Map<String, String> defaults;
  private MalformedRecordException refusal;

  /** @param out the document read from the package: its deadline, and its text budget for the byte budget */
  OfficePackage(ZipFile zip, ExtractedDocument out) {
    this.zip = zip;
    this.out = out;
    this.budget = OfficeFiles.XML_PER_TEXT * out.budget();
  }

  ExtractedDocument document() {
    return out;
  }

  /** Why a part's stream refused to go on, or {@code null}; a parser wrapping the refusal hides it. */
  MalformedRecordException refusal() {
    return refusal;
  }

  /**
   * A part's bytes as they inflate, counted. Part names are as in relationships without the leading
   * {@code /}; like OPC, the lookup ignores case when the exact name is missing.
   */
  InputStream open(String part) throws IOException {
    ZipEntry entry = entry(part);
    if (entry == null) {
      throw new IOException("no part " + part + " in the package");
    }
    long declared = entry.getSize();
    if (declared > budget - inflated) {
      throw refuse(QuarantineReason.TOO_LARGE, "part " + part + " declares " + declared + " bytes, more than the "
          + (budget - inflated) + " left of " + budgetText());
    }
    return new Counted(zip.getInputStream(entry), part, declared);
  }

  boolean has(String part) {
    return entry(part) != null;
  }

  private ZipEntry entry(String part) {
    ZipEntry e = zip.getEntry(part);
    if (e != null) {
      return e;
    }
    if (byLowerCaseName == null) {
      byLowerCaseName = new HashMap<>();
      for (Enumeration<? extends ZipEntry> all = zip.entries(); all.hasMoreElements(); ) {
        ZipEntry z = all.nextElement();
        byLowerCaseName.putIfAbsent(z.getName().toLowerCase(Locale.ROOT), z);
      }
    }
    return byLowerCaseName.get(part.toLowerCase(Locale.ROOT));
  }

  /** The part's content type from {@code [Content_Types].xml}: its override, else its extension's default. */
  String contentType(String part) throws IOException, XMLStreamException, MalformedRecordException,
      ExtractedDocument.TooCostly {
    if (overrides == null) {
      readContentTypes();
    }
    String type = overrides.get("/" + part.toLowerCase(Locale.ROOT));
    if (type != null) {
      return type;
    }
    int dot = part.lastIndexOf('.');
    return dot < 0 || dot < part.lastIndexOf('/') ? "" : defaults.getOrDefault(part.substring(dot + 1)
        .toLowerCase(Locale.ROOT), "");
  }

  private void readContentTypes() throws IOException, XMLStreamException, MalformedRecordException,
      ExtractedDocument.TooCostly {
    overrides = new HashMap<>();
    defaults = new HashMap<>();
    if (!has("[Content_Types].xml")) {
      throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT, "no [Content_Types].xml: not an Office "
          + "Open XML package");
    }
    try (OfficeXml x = OfficeXml.open(this, "[Content_Types].xml")) {
      while (x.next() != XMLStreamConstants.END_DOCUMENT) {
        if (x.isStart("Override") && x.attr("PartName") != null && x.attr("ContentType") != null) {
          overrides.put(x.attr("PartName").toLowerCase(Locale.ROOT), x.attr("ContentType"));
        } else if (x.isStart("Default") && x.attr("Extension") != null && x.attr("ContentType") != null) {
          defaults.put(x.attr("Extension").toLowerCase(Locale.ROOT), x.attr("ContentType"));
        }
      }
    }
  }

  /**
   * The relationships of a part ({@code ""}: of the package), in the order of its {@code .rels} part;
   * none when it has none. External targets and targets that are no part name are left out.
   */
  List<Relationship> relationships(String part) throws IOException, XMLStreamException, MalformedRecordException,
      ExtractedDocument.TooCostly {
    int slash = part.lastIndexOf('/');
    String rels = part.substring(0, slash + 1) + "_rels/" + part.substring(slash + 1) + ".rels";
    List<Relationship> found = new ArrayList<>();
    if (!has(rels)) {
      return found;
    }
    try (OfficeXml x = OfficeXml.open(this, rels)) {
      while (x.next() != XMLStreamConstants.END_DOCUMENT) {
        if (x.isStart("Relationship") && !"External".equals(x.attr("TargetMode"))) {
          String target = resolve(part, x.attr("Target"));
          if (target != null && x.attr("Id") != null && x.attr("Type") != null) {
            found.add(new Relationship(x.attr("Id"), x.attr("Type"), target));
          }
        }
      }
    }
    return found;
  }

  /** The first relationship of the part (or the package: {@code ""}) whose type ends so, or {@code null}. */
  Relationship related(String part, String typeSuffix) throws IOException, XMLStreamException,
      MalformedRecordException, ExtractedDocument.TooCostly {
    for (Relationship r : relationships(part)) {
      if (r.is(typeSuffix)) {
        return r;
      }
    }
    return null;
  }

  /** A relationship's target as a part name, resolved against its source part; {@code null} if it is none. */
  static String resolve(String source, String target) {
    if (target == null || target.isEmpty()) {
      return null;
    }
    try {
      String path = URI.create("/" + source).resolve(URI.create(target)).getPath();
      return path == null || path.length() < 2 || !path.startsWith("/") ? null : path.substring(1);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  String budgetText() {
    return OfficeFiles.XML_PER_TEXT + " x ingest.max-record-bytes (" + budget + " bytes of XML)";
  }

  private Refused refuse(String reason, String message) {
    refusal = new MalformedRecordException(reason, message);
    return new Refused(refusal);
  }

  @Override
  public void close() throws IOException {
    zip.close();
  }

  /** A part's stream refusing to go on; the reason is also kept as {@link #refusal()}. */
  static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    Refused(MalformedRecordException why) {
      super(why.getMessage(), why);
    }
  }

  /** A part's inflating stream, every byte counted against its declared size and the package's budget. */
  private final class Counted extends InputStream {
    private final InputStream in;
    private final String part;
    private final long declared;
    private long read;

    Counted(InputStream in, String part, long declared) {
      this.in = in;
      this.part = part;
      this.declared = declared;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      // Through read, so that skipped bytes count too.
      byte[] scratch = new byte[(int) Math.min(8192, Math.max(0, n))];
      long skipped = 0;
      while (skipped < n) {
        int r = read(scratch, 0, (int) Math.min(scratch.length, n - skipped));
        if (r < 0) {
          break;
        }
        skipped += r;
      }
      return skipped;
    }

    private void count(int n) throws Refused {
      read += n;
      inflated += n;
      if (declared >= 0 && read > declared) {
        throw refuse(QuarantineReason.CORRUPT_DOCUMENT, "ZIP entry " + part + " inflates past the " + declared
            + " bytes its directory declares: a damaged or forged package");
      }
      if (inflated > budget) {
        throw refuse(QuarantineReason.TOO_LARGE, "the parts read inflate past " + budgetText()
            + ": far more markup than text");
      }
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
