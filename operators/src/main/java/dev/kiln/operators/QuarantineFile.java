package dev.kiln.operators;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * One JSON-lines file of quarantined records, written through Flink's file systems (any root) and
 * created on the first record, so that a subtask with nothing to quarantine leaves no file. Counts by
 * reason and by source for the {@link QuarantineSummary}.
 */
final class QuarantineFile implements Closeable {
  private static final ObjectWriter JSON = new ObjectMapper().writer();

  private final Path file;
  private final Map<String, Long> byReason = new HashMap<>();
  private final Map<String, Long> bySource = new HashMap<>();
  private BufferedWriter writer;

  QuarantineFile(Path file) {
    this.file = file;
  }

  void write(QuarantinedRecord r) throws IOException {
    if (writer == null) {
      FileSystem fs = file.getFileSystem();
      writer = new BufferedWriter(new OutputStreamWriter(
          fs.create(file, FileSystem.WriteMode.OVERWRITE), StandardCharsets.UTF_8), 1 << 16);
    }
    writer.write(JSON.writeValueAsString(r));
    writer.write('\n');
    byReason.merge(r.reason(), 1L, Long::sum);
    bySource.merge(r.sourceUri(), 1L, Long::sum);
  }

  /** What was written, or {@code null} when nothing was (no file). */
  QuarantineSummary summary() {
    return writer == null ? null : new QuarantineSummary(file.toString(), byReason, bySource);
  }

  @Override
  public void close() throws IOException {
    if (writer != null) {
      writer.close();
    }
  }
}
