package dev.kiln.ingest;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Instant;
import java.util.Date;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;
import org.apache.poi.ooxml.POIXMLProperties;
import org.apache.poi.openxml4j.exceptions.InvalidFormatException;
import org.apache.poi.openxml4j.opc.OPCPackage;
import org.apache.poi.openxml4j.opc.PackageAccess;
import org.apache.poi.poifs.crypt.Decryptor;
import org.apache.poi.poifs.filesystem.FileMagic;
import org.apache.poi.poifs.filesystem.POIFSFileSystem;

/**
 * Opening DOCX and PPTX files (Office Open XML: a ZIP package) with POI, read-only and by random access
 * ({@code OPCPackage.open(File)}, whose ZIP reader also refuses zip bombs), after checking that the ZIP's
 * central directory is there. A password-protected Office
 * file is not a ZIP but an OLE2 container holding an {@code EncryptedPackage}: that is {@code
 * encrypted}; any other OLE2 file (a legacy {@code .doc} or {@code .ppt} renamed), a file that is no
 * ZIP, or a ZIP that cannot be read (truncated: no central directory) is {@code corrupt_document}.
 */
final class OfficeFiles {
  private OfficeFiles() {}

  /**
   * POI parses each XML part into memory, at several times its size: the XML parts together may be at
   * most this many times the record limit (real documents have well under 20 bytes of XML per character
   * of text; a 500-page book is about 30 MB).
   */
  static final int XML_PER_TEXT = 8;

  /** @param maxTextChars the record limit; a package with more XML than {@link #XML_PER_TEXT} times it is too large */
  static OPCPackage open(File file, long maxTextChars) throws MalformedRecordException, IOException {
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
    // Without its central directory POI falls back to streaming the entries it finds, into memory:
    // a truncated package would be read in part, or not at all, at the cost of the whole file's size.
    try (ZipFile zip = new ZipFile(file)) {
      if (zip.size() == 0) {
        throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT, "empty ZIP package");
      }
      long xml = zip.stream().filter(e -> e.getName().endsWith(".xml")).mapToLong(e -> Math.max(0, e.getSize())).sum();
      if (xml > XML_PER_TEXT * maxTextChars) {
        throw new MalformedRecordException(QuarantineReason.TOO_LARGE, "XML parts of " + xml + " bytes, over "
            + XML_PER_TEXT + " x ingest.max-record-bytes (" + maxTextChars + "); POI would parse them into memory");
      }
    } catch (ZipException e) {
      throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT,
          "ZIP central directory unreadable (truncated?): " + e.getMessage());
    }
    try {
      return OPCPackage.open(file, PackageAccess.READ);
    } catch (InvalidFormatException | RuntimeException e) {
      throw new MalformedRecordException(QuarantineReason.CORRUPT_DOCUMENT, "unreadable Office package: " + e);
    }
  }

  private static boolean isEncrypted(File file) {
    try (POIFSFileSystem fs = new POIFSFileSystem(file, true)) {
      return fs.getRoot().hasEntry(Decryptor.DEFAULT_POIFS_ENTRY);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** Title, author, dates from the package's core properties. */
  static void coreProperties(POIXMLProperties properties, ExtractedDocument out) {
    POIXMLProperties.CoreProperties core = properties.getCoreProperties();
    out.title(core.getTitle());
    out.property(DocumentReader.AUTHOR, core.getCreator());
    out.property(DocumentReader.CREATED, instant(core.getCreated()));
    out.property(DocumentReader.DOC_MODIFIED, instant(core.getModified()));
  }

  private static Instant instant(Date d) {
    return d == null ? null : d.toInstant();
  }

  /** Closes a package opened read-only without trying to save it. */
  static void close(OPCPackage pkg) {
    pkg.revert();
  }
}
