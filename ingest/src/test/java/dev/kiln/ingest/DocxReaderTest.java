package dev.kiln.ingest;

import static dev.kiln.ingest.ExtractedFiles.chunkWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import dev.kiln.model.RawRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real DOCX files written with POI, read as the build reads them. */
class DocxReaderTest {
  @TempDir Path dir;

  static Path guide(Path file) throws Exception {
    return DocumentFixtures.docx(file, "Studio Guide", "Bea Glazer",
        "Welcome to the studio.",
        "# Clay bodies",
        "Stoneware is fired to cone 6 and becomes vitreous.",
        "## Porcelain",
        "Porcelain is translucent when thin.",
        "| Clay | Cone",
        "| Earthenware | 04",
        "| Stoneware | 6",
        "# Safety",
        "Wear a respirator when mixing dry glaze materials.");
  }

  @Test
  void headingStylesBecomeSectionsWithBreadcrumbs() throws Exception {
    Document doc = ExtractedFiles.document(dir, guide(dir.resolve("guide.docx")));
    assertEquals("guide.docx", doc.id());
    assertEquals("Studio Guide", doc.title());
    assertEquals("Bea Glazer", doc.metadata().get("author"));
    assertEquals("2026-01-05T10:00:00Z", doc.metadata().get("doc_created"));
    List<Chunk> chunks = ExtractedFiles.chunks(doc);
    // "heading 1" is found by the style's name (its id is localised), "Heading2" by its id alone.
    assertEquals("Clay bodies", chunkWith(chunks, "Stoneware is fired").breadcrumb());
    assertEquals("Clay bodies > Porcelain", chunkWith(chunks, "translucent").breadcrumb());
    assertEquals("Safety", chunkWith(chunks, "respirator").breadcrumb());
    Chunk table = chunkWith(chunks, "Earthenware | 04");
    assertTrue(table.text().contains("Clay | Cone\n"), "the table's header row leads it: " + table.text());
    for (Chunk c : chunks) {
      assertFalse(c.text().contains("translucent") && c.text().contains("respirator"), "sections mixed: " + c);
    }
  }

  @Test
  void aPasswordProtectedDocxIsQuarantinedAsEncrypted() throws Exception {
    Path plain = guide(dir.resolve("plain.docx"));
    Path secret = DocumentFixtures.encryptOffice(plain, dir.resolve("secret.docx"));
    RawRecord r = ExtractedFiles.record(secret);
    assertEquals(QuarantineReason.ENCRYPTED, r.problem());
    assertFalse(r.payload().contains("respirator"));
  }

  @Test
  void truncatedAndFakeDocxAreCorruptDocuments() throws Exception {
    Path whole = guide(dir.resolve("whole.docx"));
    for (double fraction : new double[] {0.9, 0.5}) {
      Path cut = DocumentFixtures.truncated(whole, dir.resolve("cut-" + fraction + ".docx"), fraction);
      assertEquals(QuarantineReason.CORRUPT_DOCUMENT, ExtractedFiles.problem(cut), "cut at " + fraction);
    }
    Files.writeString(dir.resolve("fake.docx"), "plain text named like a DOCX");
    assertEquals(QuarantineReason.CORRUPT_DOCUMENT, ExtractedFiles.problem(dir.resolve("fake.docx")));
    Files.write(dir.resolve("empty.docx"), new byte[0]);
    assertEquals(QuarantineReason.CORRUPT_DOCUMENT, ExtractedFiles.problem(dir.resolve("empty.docx")));
  }

  @Test
  void aDocxWithoutTextIsEmptyTextButAHeadingAloneIsText() throws Exception {
    Path blank = DocumentFixtures.docx(dir.resolve("blank.docx"), "Blank", "", "   ", "");
    assertEquals(QuarantineReason.EMPTY_TEXT, ExtractedFiles.problem(blank));
    // An author's heading is the document's own text (unlike the page and slide labels Kiln adds).
    Path headed = DocumentFixtures.docx(dir.resolve("headed.docx"), "Headed", "", "# Only a heading");
    assertNull(ExtractedFiles.record(headed).problem());
  }

  @Test
  void textBeyondTheRecordLimitIsTooLarge() throws Exception {
    String[] paragraphs = new String[200];
    Arrays.fill(paragraphs, "A paragraph about wedging clay to remove air bubbles before throwing.");
    Path big = DocumentFixtures.docx(dir.resolve("big.docx"), "Big", "", paragraphs);
    RawRecord r = ExtractedFiles.record(big, 5_000, 1L << 30);
    assertEquals(QuarantineReason.TOO_LARGE, r.problem());
    assertTrue(r.payload().contains("extracted text exceeds ingest.max-record-bytes"), r.payload());
    assertNull(ExtractedFiles.record(big, 50_000, 1L << 30).problem(), "under a larger limit it is read");
  }

  @Test
  void aPackageWithFarMoreXmlThanTheRecordLimitIsTooLargeUnparsed() throws Exception {
    String[] blocks = new String[5001];
    Arrays.fill(blocks, "");
    blocks[0] = "Little text, much markup.";
    Path bloated = DocumentFixtures.docx(dir.resolve("bloated.docx"), "Bloated", "", blocks);
    RawRecord r = ExtractedFiles.record(bloated, 10_000, 1L << 30);
    assertEquals(QuarantineReason.TOO_LARGE, r.problem());
    assertTrue(r.payload().contains("8 x ingest.max-record-bytes"), r.payload());
  }
}
