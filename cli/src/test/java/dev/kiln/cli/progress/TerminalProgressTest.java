package dev.kiln.cli.progress;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bars as the library draws them (into a buffer here: the test JVM has no terminal). */
class TerminalProgressTest {
  @Test
  void eachStageGetsABarWithCountRateAndEta() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    TerminalProgress p = new TerminalProgress(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    p.update(List.of(new StageProgress("read", "records", 7, StageProgress.UNKNOWN, "7 documents"),
        new StageProgress("embed", "chunks", 0, 20, ""), new StageProgress("write", "chunks", 0, 20, "")));
    Thread.sleep(600); // the library redraws on its own thread, every 500 ms
    p.update(List.of(new StageProgress("read", "records", 9, StageProgress.UNKNOWN, "9 documents"),
        new StageProgress("embed", "chunks", 5, 20, "5 embedded"), new StageProgress("write", "chunks", 0, 20, "")));
    Thread.sleep(600);
    p.finish(List.of(new StageProgress("read", "records", 9, StageProgress.UNKNOWN, "9 documents"),
        new StageProgress("embed", "chunks", 20, 20, "20 embedded"),
        new StageProgress("write", "chunks", 20, 20, "")));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(out.contains("read") && out.contains("9/? records") && out.contains("records/s 9 documents"), out);
    assertTrue(out.contains("embed") && out.contains("20/20 chunks") && out.contains("chunks/s"), out);
    assertTrue(out.contains("write") && out.contains("20/20 chunks"), out);
    assertTrue(out.contains("100%"), out);
    assertTrue(out.contains("\r"), "a bar is redrawn in place: " + out);
  }
}
