package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IngestConfig;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A PDF's cost to read is bounded: nested form XObjects that multiply the work are {@code too_costly}. */
class PdfCostTest {
  @TempDir Path dir;

  @Test
  void formXObjectsNestedToMultiplyTheWorkAreTooCostlyWithinAFractionOfASecond() throws Exception {
    // 12 forms, each drawing the one below four times: 4^11 (4 million) words from a file of 3 KB.
    Path bomb = HostileDocuments.nestedFormsPdf(dir.resolve("forms.pdf"), 12, 4);
    assertTrue(Files.size(bomb) < 4096, "small: " + Files.size(bomb));
    ExtractedFiles.Cost cost = ExtractedFiles.cost(bomb, 1 << 20);
    assertEquals(QuarantineReason.TOO_COSTLY, cost.record().problem(), cost.toString());
    assertTrue(cost.record().payload().contains("form XObjects multiply its work"), cost.toString());
    assertTrue(cost.cpuMillis() < 1_000, cost.toString());
    assertFalse(cost.record().payload().contains("kiln kiln"), "nothing of the content is written");
  }

  @Test
  void honestMultiPagePdfsAndModestNestingAreStillRead() throws Exception {
    List<String> pages = new ArrayList<>();
    for (int i = 1; i <= 60; i++) {
      pages.add("Page " + i + " of the glaze catalogue.\n\n" + "Celadon and tenmoku on stoneware. ".repeat(20));
    }
    Path pdf = DocumentFixtures.pdf(dir.resolve("catalogue.pdf"), "Catalogue", "", pages);
    RawRecord r = ExtractedFiles.record(pdf, 1 << 20, 1L << 30);
    assertNull(r.problem(), r.payload());
    assertTrue(r.payload().contains("Page 60 of the glaze catalogue."), "every page is read");

    // Forms nested 6 deep, each drawn three times: 243 words, as a real page of stamps or tiles has.
    RawRecord nested = ExtractedFiles.record(HostileDocuments.nestedFormsPdf(dir.resolve("tiles.pdf"), 6, 3),
        1 << 20, 1L << 30);
    assertNull(nested.problem(), nested.payload());
    assertTrue(nested.payload().contains("kiln"), nested.payload());

    // One form drawn 30,000 times, as a chart draws its markers: more draws than the bomb above runs
    // before it is stopped, but every one spelled out in the content.
    RawRecord markers = ExtractedFiles.record(HostileDocuments.nestedFormsPdf(dir.resolve("chart.pdf"), 2, 30_000),
        1 << 20, 1L << 30);
    assertNull(markers.problem(), markers.payload());

    // A form that draws itself twice is drawn once, as viewers draw it, not 2^50 times.
    RawRecord recursive = ExtractedFiles.record(HostileDocuments.selfDrawingFormPdf(dir.resolve("self.pdf"), 2),
        1 << 20, 1L << 30);
    assertNull(recursive.problem(), recursive.payload());
    assertTrue(recursive.payload().contains("kiln"), recursive.payload());
  }

  @Test
  void aDocumentPastItsDeadlineIsTooCostly() throws Exception {
    List<String> pages = new ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      pages.add("Page " + i + " of the firing log.\n\n" + "Cone 6 reached at 1,222 degrees. ".repeat(20));
    }
    Path pdf = DocumentFixtures.pdf(dir.resolve("log.pdf"), "Log", "", pages);
    // One millisecond: over before the first page ends (loading the file alone takes longer).
    List<RawRecord> late = LocalCorpus.readFile(pdf, InputFormat.AUTO, new ReadOptions(1 << 20, 1L << 30, null, null, 1));
    assertEquals(QuarantineReason.TOO_COSTLY, late.get(0).problem(), late.get(0).payload());
    assertTrue(late.get(0).payload().contains("ingest.max-document-millis (1 ms)"), late.get(0).payload());
    List<RawRecord> inTime = LocalCorpus.readFile(pdf, InputFormat.AUTO,
        new ReadOptions(1 << 20, 1L << 30, null, null, new IngestConfig().maxDocumentMillis));
    assertNull(inTime.get(0).problem(), "the default deadline is ample");
  }
}
