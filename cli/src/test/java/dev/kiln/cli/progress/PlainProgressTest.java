package dev.kiln.cli.progress;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlainProgressTest {
  /** A clock the test moves. */
  private static final class Manual extends Clock {
    long millis;

    @Override
    public long millis() {
      return millis;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis);
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }

  private static List<StageProgress> stages(long read, long embedded, long chunks) {
    return List.of(new StageProgress("read", "records", read, StageProgress.UNKNOWN, "3 documents"),
        new StageProgress("embed", "chunks", embedded, chunks, ""),
        new StageProgress("write", "chunks", 0, chunks, ""));
  }

  @Test
  void printsMovingStagesEveryIntervalWithRateAndEta() {
    Manual clock = new Manual();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PlainProgress p = new PlainProgress(new PrintStream(bytes, true, StandardCharsets.UTF_8), Duration.ofSeconds(10),
        clock);
    p.update(stages(10, 0, 0)); // read starts at t=0
    clock.millis = 4_000;
    p.update(stages(20, 0, 0)); // within the interval: nothing printed
    clock.millis = 10_000;
    p.update(stages(50, 0, 400)); // embed has not started
    clock.millis = 12_000;
    p.update(stages(50, 100, 400)); // embed starts at t=12 s
    clock.millis = 22_000;
    p.update(stages(50, 300, 400)); // read did not move: only embed is printed
    clock.millis = 24_000;
    p.finish(stages(50, 400, 400));
    assertEquals(String.join("\n",
        // Rates count from a stage's first count seen (read: 10 at t=0; embed: 100 at t=12 s).
        "progress: read 50 records, 4.0 records/s [3 documents]",
        "progress: embed 300/400 chunks (75%), 20.0 chunks/s, ETA 5s",
        "progress: read 50 records, 1.7 records/s, done [3 documents]",
        "progress: embed 400/400 chunks (100%), 25.0 chunks/s, done",
        ""), bytes.toString(StandardCharsets.UTF_8).replace("\r\n", "\n"));
  }

  @Test
  void aStageSeenOnceHasNoRateYetRatherThanAWrongOne() {
    Manual clock = new Manual();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PlainProgress p = new PlainProgress(new PrintStream(bytes, true, StandardCharsets.UTF_8), Duration.ofSeconds(10),
        clock);
    clock.millis = 10_000;
    // The embed stage's first step: a whole batch, after work the counter did not show.
    p.update(stages(5, 256, 874));
    assertEquals("progress: read 5 records [3 documents]\nprogress: embed 256/874 chunks (29%)\n",
        bytes.toString(StandardCharsets.UTF_8).replace("\r\n", "\n"));
  }

  @Test
  void etaReadsAsHoursMinutesOrSeconds() {
    assertEquals("42s", PlainProgress.eta(42));
    assertEquals("3m05s", PlainProgress.eta(185));
    assertEquals("2h01m", PlainProgress.eta(7290));
  }

  @Test
  void aStageCannotBeMoreThanDone() {
    assertEquals(12, new StageProgress("embed", "chunks", 12, 10, null).total());
  }
}
