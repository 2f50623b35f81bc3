package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DOCX files built to exhaust a reader — a renamed main part, a ZIP entry that lies about its size,
 * tables nested thousands deep — each quarantined under its reason at a small, measured cost (this
 * thread's CPU time and heap allocation), and an honest multi-megabyte DOCX read without a tree of its
 * XML. The build's task heap (512 MB) is what these files used to exhaust.
 */
class DocxHostileFilesTest {
  @TempDir Path dir;

  /** Far below what the files cost a reader that trusts them (seconds, and gigabytes of heap). */
  static final long CPU_MILLIS = 2_000;
  static final long ALLOCATED_MB = 64;

  @Test
  void aRenamedMainPartIsFollowedAndItsInflatedBytesCount() throws Exception {
    // Found through the package's relationships, whatever its name: read.
    Path small = HostileDocuments.renamedMainPart(dir.resolve("small.docx"), 10_000, "Shino glazes crawl over ash.");
    RawRecord read = ExtractedFiles.record(small, 100_000, 1L << 30);
    assertNull(read.problem(), read.payload());
    assertTrue(read.payload().contains("Shino glazes crawl over ash."), read.payload());

    // 6 MB of markup in a part named .bin: 60 times the record limit, and counted as such.
    Path bloated = HostileDocuments.renamedMainPart(dir.resolve("bloated.docx"), 6_000_000, "Little text.");
    ExtractedFiles.Cost cost = ExtractedFiles.cost(bloated, 100_000);
    assertEquals(QuarantineReason.TOO_LARGE, cost.record().problem(), cost.toString());
    assertTrue(cost.cpuMillis() < CPU_MILLIS && cost.allocatedMb() < ALLOCATED_MB, cost.toString());
  }

  @Test
  void anEntryThatInflatesPastItsDeclaredSizeIsCorruptAndReadNoFurther() throws Exception {
    // A zip bomb: 50 MB of XML whose central directory entry says 100 bytes.
    Path bomb = HostileDocuments.forgedSizeDocx(dir.resolve("bomb.docx"), 50L << 20, 100);
    assertTrue(Files.size(bomb) < (4 << 20), "small on disk: " + Files.size(bomb));
    ExtractedFiles.Cost cost = ExtractedFiles.cost(bomb, 16 << 20);
    assertEquals(QuarantineReason.CORRUPT_DOCUMENT, cost.record().problem(), cost.toString());
    assertTrue(cost.record().payload().contains("inflates past the 100 bytes its directory declares"), cost.toString());
    assertTrue(cost.cpuMillis() < CPU_MILLIS && cost.allocatedMb() < ALLOCATED_MB, cost.toString());
  }

  @Test
  void tablesNestedThousandsDeepAreCorruptNotAStackOverflow() throws Exception {
    Path nested = HostileDocuments.nestedTablesDocx(dir.resolve("nested.docx"), 50_000);
    ExtractedFiles.Cost cost = ExtractedFiles.cost(nested, 16 << 20);
    assertEquals(QuarantineReason.CORRUPT_DOCUMENT, cost.record().problem(), cost.toString());
    assertTrue(cost.record().payload().contains("nested deeper than " + OfficeXml.MAX_DEPTH), cost.toString());
    assertTrue(cost.cpuMillis() < CPU_MILLIS && cost.allocatedMb() < ALLOCATED_MB, cost.toString());
  }

  @Test
  void anHonestMultiMegabyteDocxIsReadWithoutATreeOfItsXml() throws Exception {
    // The same 3.4 MB of text in 15 MB of XML, and with empty formatted runs beside it, in 42 MB.
    int paragraphs = 60_000;
    Path lean = HostileDocuments.longDocx(dir.resolve("lean.docx"), paragraphs, 0);
    Path marked = HostileDocuments.longDocx(dir.resolve("marked.docx"), paragraphs, 3);
    long leanXml = xmlBytes(lean);
    long markedXml = xmlBytes(marked);
    ExtractedFiles.Cost leanCost = ExtractedFiles.cost(lean, 16 << 20);
    ExtractedFiles.Cost markedCost = ExtractedFiles.cost(marked, 16 << 20);
    for (ExtractedFiles.Cost cost : List.of(leanCost, markedCost)) {
      assertNull(cost.record().problem(), cost.toString());
      assertTrue(cost.record().payload().contains("Paragraph " + (paragraphs - 1) + " of the long report"),
          "read to the end");
    }
    // A tree of the XML costs several times the XML (POI's: 29 bytes allocated per byte of XML). A
    // streaming pass allocates for the text it keeps: 27 MB of markup more cost next to nothing more.
    assertTrue(markedXml - leanXml > 20 << 20, "the markup differs by " + (markedXml - leanXml));
    assertTrue(markedCost.allocatedBytes() - leanCost.allocatedBytes() < (markedXml - leanXml) / 10,
        "XML " + leanXml + " then " + markedXml + " bytes; " + leanCost + "; then " + markedCost);
  }

  private static long xmlBytes(Path docx) throws Exception {
    return HostileDocuments.read(docx).values().stream().mapToLong(v -> ((byte[]) v).length).sum();
  }

  @Test
  void theRestOfACorpusIsReadBesideTheHostileFiles() throws Exception {
    Path corpus = Files.createDirectories(dir.resolve("corpus"));
    DocxReaderTest.guide(corpus.resolve("guide.docx"));
    DocumentFixtures.pptx(corpus.resolve("deck.pptx"), "Deck", "", "Raku", "Pots go into sawdust while red hot");
    DocumentFixtures.pdf(corpus.resolve("manual.pdf"), "Manual", "", PdfReaderTest.PAGES);
    HostileDocuments.renamedMainPart(corpus.resolve("renamed.docx"), 2_000_000, "Little text.");
    HostileDocuments.forgedSizeDocx(corpus.resolve("bomb.docx"), 5L << 20, 100);
    HostileDocuments.nestedTablesDocx(corpus.resolve("nested.docx"), 2_000);
    HostileDocuments.largeDeck(corpus.resolve("slides.pptx"), 2_000, 100);
    List<RawRecord> records = LocalCorpus.read(InputFormat.AUTO, 100_000, corpus);
    Map<String, String> reasons = new TreeMap<>();
    for (RawRecord r : records) {
      reasons.put(r.sourceUri().substring(r.sourceUri().lastIndexOf('/') + 1), String.valueOf(r.problem()));
    }
    assertEquals(Map.of("guide.docx", "null", "deck.pptx", "null", "manual.pdf", "null",
        "renamed.docx", QuarantineReason.TOO_LARGE, "bomb.docx", QuarantineReason.CORRUPT_DOCUMENT,
        "nested.docx", QuarantineReason.CORRUPT_DOCUMENT, "slides.pptx", QuarantineReason.TOO_LARGE), reasons);
  }
}
