package dev.kiln.ingest;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import org.apache.poi.poifs.crypt.Decryptor;
import org.apache.poi.poifs.filesystem.FileMagic;
import org.apache.poi.poifs.filesystem.POIFSFileSystem;

/**
 * Reading DOCX and PPTX files (Office Open XML: a ZIP package), by random access from a local file,
 * each part streamed ({@link OfficePackage}, {@link OfficeXml}) by the format's {@link Extractor}. A
 * password-protected Office file is not a ZIP but an OLE2 container holding an {@code EncryptedPackage}
 * (told apart with POI's POIFS): that is {@code encrypted}; any other OLE2 file (a legacy {@code .doc} or
 * {@code .ppt} renamed), a file that is no ZIP, or a ZIP that cannot be read (truncated: no central
 * directory) is {@code corrupt_document}; damage found while reading is {@code corrupt_document} too.
 *
 * <p>No part is parsed into a tree (POI's usermodel would hold the whole main part, at ten or more times
 * its XML, and a deck's every slide at once): the readers keep the paragraph, table or slide at hand. So
 * POI's OOXML reader, and the zip-bomb limits of its {@code ZipSecureFile}, play no part; the package's
 * own byte budget ({@link #XML_PER_TEXT}) and the declared-size check replace them, per document rather
 * than per JVM.
 */
final class OfficeFiles {
  private OfficeFiles() {}

  /**
   * The bytes of XML a document's parts may inflate to, all parts read together, as a multiple of the
   * record limit: real documents have well under 20 bytes of XML per character of text, and a document
   * with this much markup per character is mostly markup. The budget bounds the work of reading
   * (a 16 MiB record limit allows 128 MiB of XML, a second or two of parsing), not its memory, which
   * streaming keeps to the text.
   */
  static final int XML_PER_TEXT = 8;
  /** Characters kept of a document property (title, author). */
  private static final int MAX_PROPERTY_CHARS = 4096;

  /** What a format reads from an open package into the document. */
  @FunctionalInterface
  interface Extractor {
    void extract(OfficePackage pkg, ExtractedDocument out) throws MalformedRecordException,
        ExtractedDocument.TooLarge, ExtractedDocument.TooCostly, XMLStreamException, IOException;
  }

  /**
   * Opens the file as a package and extracts it, turning every way the package can fail into its
   * quarantine reason.
   *
   * @param kind {@code DOCX} or {@code PPTX}, for messages
   */
  static void read(File file, ExtractedDocument out, String kind, Extractor extractor)
      throws MalformedRecordException, IOException {
    try (OfficePackage pkg = open(file, out)) {
      try {
        extractor.extract(pkg, out);
      } catch (ExtractedDocument.TooLarge e) {
        throw new MalformedRecordException(QuarantineReason.TOO_LARGE, e.getMessage());
      } catch (ExtractedDocument.TooCostly e) {
        throw new MalformedRecordException(QuarantineReason.TOO_COSTLY, e.getMessage());
      } catch (XMLStreamException | IOException | RuntimeException e) {
        // A part's stream that refused to go on surfaces wrapped by the parser: its own reason first.
        // Anything else is damage: the file is local, so a failure to read it is the file's.
        MalformedRecordException refused = pkg.refusal();
        throw refused != null ? refused
            : new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT, kind + " cannot be parsed: " + e);
      }
    }
    if (!out.hasText()) {
      throw new MalformedRecordException(QuarantineReason.EMPTY_TEXT, kind + " without text");
    }
  }

  private static OfficePackage open(File file, ExtractedDocument out) throws MalformedRecordException, IOException {
    FileMagic magic;
    try (InputStream in = FileMagic.prepareToCheckMagic(Files.newInputStream(file.toPath()))) {
      magic = FileMagic.valueOf(in);
    } catch (IOException | RuntimeException e) {
      // POI's EmptyFileException (a RuntimeException) for a zero-length file.
      if (file.length() == 0) {
        throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT, "empty file");
      }
      throw e;
    }
    if (magic == FileMagic.OLE2) {
      if (isEncrypted(file)) {
        throw new MalformedRecordException(QuarantineReason.ENCRYPTED, "Office file needs a password to open");
      }
      throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT,
          "an OLE2 file (legacy .doc/.ppt?), not Office Open XML");
    }
    if (magic != FileMagic.OOXML) {
      throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT,
          "not a ZIP package (file starts like " + magic + ")");
    }
    ZipFile zip;
    try {
      // The JDK's reader needs the central directory: a truncated package is refused, not half read.
      zip = new ZipFile(file);
    } catch (ZipException e) {
      throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT,
          "ZIP central directory unreadable (truncated?): " + e.getMessage());
    }
    if (zip.size() == 0) {
      zip.close();
      throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT, "empty ZIP package");
    }
    return new OfficePackage(zip, out);
  }

  private static boolean isEncrypted(File file) {
    try (POIFSFileSystem fs = new POIFSFileSystem(file, true)) {
      return fs.getRoot().hasEntry(Decryptor.DEFAULT_POIFS_ENTRY);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * The package's main part (its {@code officeDocument} relationship), refused unless its content type
   * is the format's.
   *
   * @param typeMarker a fragment every content type of the format's main part has ({@code
   *     wordprocessingml}, {@code presentationml}); the macro-enabled ones have {@code msMarker} instead
   */
  static String mainPart(OfficePackage pkg, String kind, String typeMarker, String msMarker)
      throws MalformedRecordException, IOException, XMLStreamException, ExtractedDocument.TooCostly {
    OfficePackage.Relationship main = pkg.related("", "/officeDocument");
    if (main == null || !pkg.has(main.target())) {
      throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT, "no main document part: not a " + kind);
    }
    String type = pkg.contentType(main.target());
    if (!(type.contains(typeMarker) || type.contains(msMarker)) || !type.endsWith(".main+xml")) {
      throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT,
          "not a " + kind + ": its main part " + main.target() + " is " + (type.isEmpty() ? "untyped" : type));
    }
    return main.target();
  }

  /**
   * Title, author and dates from the package's core properties; with {@code pages}, the page count Word
   * recorded in the extended properties.
   */
  static void properties(OfficePackage pkg, ExtractedDocument out, boolean pages)
      throws IOException, XMLStreamException, MalformedRecordException, ExtractedDocument.TooCostly {
    OfficePackage.Relationship core = pkg.related("", "/metadata/core-properties");
    if (core != null && pkg.has(core.target())) {
      try (OfficeXml x = OfficeXml.open(pkg, core.target())) {
        while (x.next() != XMLStreamConstants.END_DOCUMENT) {
          if (x.isStart() && x.depth() == 2) {
            switch (x.name()) {
              case "title" -> out.title(x.shortText(MAX_PROPERTY_CHARS));
              case "creator" -> out.property(DocumentReader.AUTHOR, x.shortText(MAX_PROPERTY_CHARS));
              case "created" -> out.property(DocumentReader.CREATED, instant(x.shortText(64)));
              case "modified" -> out.property(DocumentReader.DOC_MODIFIED, instant(x.shortText(64)));
              default -> x.skip();
            }
          }
        }
      }
    }
    OfficePackage.Relationship app = pages ? pkg.related("", "/extended-properties") : null;
    if (app != null && pkg.has(app.target())) {
      try (OfficeXml x = OfficeXml.open(pkg, app.target())) {
        while (x.next() != XMLStreamConstants.END_DOCUMENT) {
          if (x.isStart("Pages") && x.depth() == 2) {
            try {
              out.property(DocumentReader.PAGES, Long.parseLong(x.shortText(20).strip()));
            } catch (NumberFormatException e) {
              // not a count: no pages property
            }
          } else if (x.isStart() && x.depth() == 2) {
            x.skip();
          }
        }
      }
    }
  }

  /** A W3CDTF date (ISO 8601: a day, or a time with its zone), or {@code null}. */
  static Instant instant(String w3cdtf) {
    String s = w3cdtf.strip();
    try {
      return s.length() <= 10 ? LocalDate.parse(s).atStartOfDay(ZoneOffset.UTC).toInstant()
          : OffsetDateTime.parse(s).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
