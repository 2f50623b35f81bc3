package dev.kiln.ingest;

import static dev.kiln.ingest.ExtractedFiles.chunkWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.Chunk;
import dev.kiln.model.ContentType;
import dev.kiln.model.Document;
import dev.kiln.model.RawRecord;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.apache.pdfbox.pdmodel.encryption.AccessPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real PDFs written with PDFBox, read as the build reads them. */
class PdfReaderTest {
  @TempDir Path dir;

  static final List<String> PAGES = List.of(
      "Kiln firing manual\n\nThis manual explains how a kiln is loaded and fired.",
      "Bisque firing happens at cone 04.\nThe ware is dried for two days first.\n\nCandling removes the last water.",
      "Glaze firing reaches cone 6 in oxidation.\n\nCooling slowly prevents crazing of the glaze.");

  @Test
  void eachPageIsASectionAndEveryChunkNamesItsPage() throws Exception {
    Path pdf = DocumentFixtures.pdf(dir.resolve("manuals/kiln.pdf"), "Kiln Firing Manual", "Ada Potter", PAGES);
    Document doc = ExtractedFiles.document(dir, pdf);
    assertEquals("manuals/kiln.pdf", doc.id());
    assertEquals("Kiln Firing Manual", doc.title());
    assertEquals(ContentType.HTML, doc.contentType());
    assertEquals("Ada Potter", doc.metadata().get("author"));
    assertEquals("2026-01-05T10:00:00Z", doc.metadata().get("doc_created"));
    assertEquals("3", doc.metadata().get("pages"));
    assertTrue(doc.metadata().get("source_uri").endsWith("manuals/kiln.pdf"));

    List<Chunk> chunks = ExtractedFiles.chunks(doc);
    assertEquals("Page 2", chunkWith(chunks, "Bisque firing happens at cone 04.").breadcrumb());
    assertEquals("Page 3", chunkWith(chunks, "Cooling slowly prevents crazing").breadcrumb());
    assertEquals("Page 1", chunkWith(chunks, "how a kiln is loaded").breadcrumb());
    for (Chunk c : chunks) {
      assertFalse(c.text().contains("cone 04") && c.text().contains("cone 6"), "a chunk spans two pages: " + c);
    }
  }

  @Test
  void bookmarksBecomeHeadingsAboveTheirPages() throws Exception {
    Path pdf = DocumentFixtures.pdf(dir.resolve("outlined.pdf"), "", "", PAGES,
        "Introduction", 0, "Firing", 1);
    List<Chunk> chunks = ExtractedFiles.chunks(ExtractedFiles.document(dir, pdf));
    assertEquals("Introduction > Page 1", chunkWith(chunks, "how a kiln is loaded").breadcrumb());
    assertEquals("Firing > Page 2", chunkWith(chunks, "Candling removes").breadcrumb());
    // No bookmark at page 3: it stays in the section of the last one.
    assertEquals("Firing > Page 3", chunkWith(chunks, "Glaze firing reaches").breadcrumb());
  }

  @Test
  void untitledPdfIsTitledByItsFileName() throws Exception {
    Document doc = ExtractedFiles.document(dir, DocumentFixtures.pdf(dir.resolve("notes-2026.pdf"), "", "", PAGES));
    assertEquals("notes-2026", doc.title());
    assertNull(doc.metadata().get("author"));
  }

  @Test
  void aPdfThatNeedsAPasswordIsQuarantinedAsEncrypted() throws Exception {
    Path pdf = DocumentFixtures.encryptedPdf(dir.resolve("secret.pdf"), "Confidential glaze recipes.");
    RawRecord r = ExtractedFiles.record(pdf);
    assertEquals(QuarantineReason.ENCRYPTED, r.problem());
    assertFalse(r.payload().contains("glaze recipes"), "nothing of the content leaks into the quarantine");
  }

  @Test
  void aPdfWithOnlyAnOwnerPasswordOpensAndIsRead() throws Exception {
    AccessPermission noCopying = new AccessPermission();
    noCopying.setCanExtractContent(false);
    Path pdf = DocumentFixtures.encryptedPdf(dir.resolve("restricted.pdf"), "Shino glazes crawl over ash.", "",
        noCopying);
    RawRecord r = ExtractedFiles.record(pdf);
    assertNull(r.problem(), r.payload());
    assertTrue(r.payload().contains("Shino glazes crawl over ash."), r.payload());
  }

  @Test
  void aScannedPdfWithoutTextLayerIsQuarantinedAsNoTextLayer() throws Exception {
    Path pdf = DocumentFixtures.imageOnlyPdf(dir.resolve("scan.pdf"), 2);
    RawRecord r = ExtractedFiles.record(pdf);
    assertEquals(QuarantineReason.NO_TEXT_LAYER, r.problem());
    assertTrue(r.payload().contains("2 pages"), r.payload());
  }

  @Test
  void truncatedAndFakePdfsAreCorruptDocuments() throws Exception {
    Path whole = DocumentFixtures.pdf(dir.resolve("whole.pdf"), "t", "a", PAGES);
    for (double fraction : new double[] {0.9, 0.5, 0.1}) {
      Path cut = DocumentFixtures.truncated(whole, dir.resolve("cut-" + fraction + ".pdf"), fraction);
      assertEquals(QuarantineReason.CORRUPT_DOCUMENT, ExtractedFiles.problem(cut), "cut at " + fraction);
    }
    Files.writeString(dir.resolve("fake.pdf"), "just text named like a PDF");
    assertEquals(QuarantineReason.CORRUPT_DOCUMENT, ExtractedFiles.problem(dir.resolve("fake.pdf")));
    Files.write(dir.resolve("empty.pdf"), new byte[0]);
    assertEquals(QuarantineReason.CORRUPT_DOCUMENT, ExtractedFiles.problem(dir.resolve("empty.pdf")));
  }

  @Test
  void textBeyondTheRecordLimitIsTooLarge() throws Exception {
    List<String> pages = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      pages.add(("Page " + i + " of a long catalogue of glazes and firing schedules.\n").repeat(30));
    }
    Path pdf = DocumentFixtures.pdf(dir.resolve("long.pdf"), "Catalogue", "", pages);
    RawRecord capped = ExtractedFiles.record(pdf, 20_000, 1L << 30);
    assertEquals(QuarantineReason.TOO_LARGE, capped.problem());
    assertTrue(capped.payload().contains("max-record-bytes"), capped.payload());
    assertNull(ExtractedFiles.record(pdf, 200_000, 1L << 30).problem(), "the same file under a larger limit is read");
  }

  @Test
  void aGzippedPdfIsReadThroughABoundedLocalCopyThatIsRemovedAfterwards() throws Exception {
    Path pdf = DocumentFixtures.pdf(dir.resolve("plain.pdf"), "Zipped", "", PAGES);
    Path gz = Files.createDirectories(dir.resolve("gz")).resolve("kiln.pdf.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      Files.copy(pdf, out);
    }
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    long before = copies(tmp);
    Document doc = ExtractedFiles.document(dir.resolve("gz"), gz);
    assertEquals("kiln.pdf.gz", doc.id());
    assertEquals("Page 2", chunkWith(ExtractedFiles.chunks(doc), "Candling removes").breadcrumb());
    assertEquals(before, copies(tmp), "the local copy is deleted");

    RawRecord refused = ExtractedFiles.record(gz, 1 << 20, Files.size(pdf) - 1);
    assertEquals(QuarantineReason.TOO_LARGE, refused.problem());
    assertTrue(refused.payload().contains("ingest.max-spool-bytes"), refused.payload());
    assertEquals(before, copies(tmp), "a refused copy is deleted too");

    Path cutGz = DocumentFixtures.truncated(gz, dir.resolve("gz/cut.pdf.gz"), 0.5);
    assertEquals(QuarantineReason.TRUNCATED_COMPRESSED, ExtractedFiles.problem(cutGz));
  }

  private static long copies(Path tmp) throws Exception {
    try (Stream<Path> files = Files.list(tmp)) {
      return files.filter(p -> p.getFileName().toString().startsWith("kiln-document-")).count();
    }
  }
}
