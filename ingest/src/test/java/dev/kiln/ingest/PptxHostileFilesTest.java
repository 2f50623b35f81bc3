package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.RawRecord;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Decks of thousands of slides: read slide by slide, and stopped at the record limit. */
class PptxHostileFilesTest {
  @TempDir Path dir;

  @Test
  void aDeckOfThousandsOfSlidesOverTheRecordLimitIsTooLargeAndStopsThere() throws Exception {
    // Slides of 400 characters over a 1 MiB record limit: the limit falls at about slide 2,500.
    ExtractedFiles.Cost three = ExtractedFiles.cost(HostileDocuments.largeDeck(dir.resolve("3000.pptx"), 3_000, 400),
        1 << 20);
    ExtractedFiles.Cost twelve = ExtractedFiles.cost(
        HostileDocuments.largeDeck(dir.resolve("12000.pptx"), 12_000, 400), 1 << 20);
    for (ExtractedFiles.Cost cost : List.of(three, twelve)) {
      assertEquals(QuarantineReason.TOO_LARGE, cost.record().problem(), cost.toString());
      assertTrue(cost.record().payload().contains("max-record-bytes"), cost.toString());
      assertTrue(cost.cpuMillis() < DocxHostileFilesTest.CPU_MILLIS, cost.toString());
    }
    // Read slide by slide and stopped at the limit: four times the slides cost little more (their list).
    assertTrue(twelve.allocatedBytes() < three.allocatedBytes() * 3 / 2, three + "; " + twelve);
  }

  @Test
  void aLongDeckUnderTheLimitIsReadToItsLastSlideInOrder() throws Exception {
    Path deck = HostileDocuments.largeDeck(dir.resolve("deck.pptx"), 500, 100);
    RawRecord r = ExtractedFiles.record(deck, 1 << 20, 1L << 30);
    assertNull(r.problem(), r.payload());
    String html = r.payload();
    assertTrue(html.contains("\"slides\":\"500\""), html.substring(html.length() - 200));
    int first = html.indexOf("Slide 1: Slide title 1<");
    int last = html.indexOf("Slide 500: Slide title 500<");
    assertTrue(first > 0 && last > first, "every slide, in order");
  }
}
