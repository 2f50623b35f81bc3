package dev.kiln.operators;

import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.accumulators.ListAccumulator;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.Collector;

/**
 * Writes quarantined records as JSON lines, one file per subtask ({@code part-00000.jsonl}, …) under
 * the quarantine directory, through Flink's file system API so the directory may be on any file
 * system. A subtask that receives nothing writes no file. Counts by reason and by source go to the
 * job's committer ({@link StageReport}) and to the {@link #SUMMARIES} accumulator (the client's table).
 */
public final class QuarantineWriterFunction extends RichMapPartitionFunction<QuarantinedRecord, StageReport> {
  private static final long serialVersionUID = 1L;
  public static final String SUMMARIES = "kiln.quarantine-summaries";
  private static final ObjectWriter JSON = new ObjectMapper().writer();

  private final String directory;
  private transient ListAccumulator<QuarantineSummary> summaries;

  public QuarantineWriterFunction(String directory) {
    this.directory = directory;
  }

  @Override
  public void open(OpenContext ctx) {
    summaries = new ListAccumulator<>();
    getRuntimeContext().addAccumulator(SUMMARIES, summaries);
  }

  @Override
  public void mapPartition(Iterable<QuarantinedRecord> records, Collector<StageReport> out) throws IOException {
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    Path file = new Path(directory, String.format(Locale.ROOT, "part-%05d.jsonl", subtask));
    Map<String, Long> byReason = new HashMap<>();
    Map<String, Long> bySource = new HashMap<>();
    BufferedWriter writer = null;
    try {
      for (QuarantinedRecord r : records) {
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
    } finally {
      if (writer != null) {
        writer.close();
      }
    }
    if (writer != null) {
      QuarantineSummary summary = new QuarantineSummary(file.toString(), byReason, bySource);
      summaries.add(summary);
      out.collect(new StageReport("write-quarantine", subtask, Map.of(), null, summary, List.of()));
    }
  }
}
