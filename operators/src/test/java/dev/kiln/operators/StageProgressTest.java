package dev.kiln.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StageProgressTest {
  private static final long SECOND = 1_000_000_000L;
  private final AtomicLong now = new AtomicLong(1_000 * SECOND);
  private final List<String> lines = new ArrayList<>();

  private StageProgress progress(long total) {
    return new StageProgress("parse", "bytes", 0, 2, total, 30_000, now::get, lines::add);
  }

  @Test
  void aKnownTotalGivesPercentRateAndEta() {
    StageProgress p = progress(1000);
    p.advance(0); // the clock starts at the first record
    now.addAndGet(10 * SECOND);
    p.advance(250);
    assertEquals(25.0, p.rate(now.get()), 1e-9);
    assertEquals(30, p.etaSeconds(now.get()), "750 bytes left at 25 bytes/s");
    assertEquals("progress parse 1/2: 250 of 1000 bytes (25.0 %), 25.0 bytes/s, ETA 30s", p.line(now.get()));
  }

  @Test
  void anUnknownTotalSaysSoAndHasNoEta() {
    StageProgress p = new StageProgress("embed", "chunks", 3, 4, -1, 30_000, now::get, lines::add);
    p.advance(0);
    now.addAndGet(4 * SECOND);
    p.advance(1200);
    assertEquals(-1, p.etaSeconds(now.get()));
    assertEquals("progress embed 4/4: 1200 chunks (total not known), 300 chunks/s, ETA unknown", p.line(now.get()));
  }

  @Test
  void beforeTheFirstUnitThereIsNoRateAndNoEta() {
    StageProgress p = progress(1000);
    assertEquals(0.0, p.rate(now.get()));
    assertEquals(-1, p.etaSeconds(now.get()));
  }

  @Test
  void aFinishedShareHasNoTimeLeftEvenPastItsEstimate() {
    StageProgress p = progress(100);
    p.advance(0);
    now.addAndGet(SECOND);
    p.advance(130); // shares are estimates: a subtask may read more than its share
    assertEquals(0, p.etaSeconds(now.get()));
    assertEquals("progress parse 1/2: 130 of 100 bytes (100.0 %), 130 bytes/s, ETA 0s", p.line(now.get()));
  }

  @Test
  void linesComeOncePerIntervalAndAtTheEnd() {
    StageProgress p = progress(-1);
    for (int i = 0; i < 100; i++) { // 100 units, one a second: a line at 30, 60 and 90 s
      p.advance(1);
      now.addAndGet(SECOND);
    }
    assertEquals(3, lines.size(), lines.toString());
    assertEquals("progress parse 1/2: 31 bytes (total not known), 1.0 bytes/s, ETA unknown", lines.get(0));
    p.finish();
    assertEquals("progress parse 1/2: finished, 100 bytes in 100.0 s (1.0 bytes/s)", lines.get(3));
  }

  @Test
  void theClockCanStartBeforeTheFirstUnitIsDone() {
    StageProgress p = progress(100);
    p.begin(); // input arrived; the first batch takes 4 s
    now.addAndGet(4 * SECOND);
    p.advance(20);
    assertEquals(5.0, p.rate(now.get()), 1e-9);
    assertEquals(16, p.etaSeconds(now.get()));
  }

  @Test
  void durationsReadAsAPersonWouldWriteThem() {
    assertEquals("45s", StageProgress.duration(45));
    assertEquals("3m05s", StageProgress.duration(185));
    assertEquals("2h07m", StageProgress.duration(2 * 3600 + 7 * 60 + 30));
  }
}
