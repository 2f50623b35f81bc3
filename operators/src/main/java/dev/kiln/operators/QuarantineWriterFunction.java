package dev.kiln.operators;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.accumulators.ListAccumulator;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
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
    QuarantineFile file = new QuarantineFile(new Path(directory, String.format(Locale.ROOT, "part-%05d.jsonl", subtask)));
    try (file) {
      for (QuarantinedRecord r : records) {
        file.write(r);
      }
    }
    QuarantineSummary summary = file.summary();
    if (summary != null) {
      summaries.add(summary);
      out.collect(new StageReport("write-quarantine", subtask, Map.of(), null, summary, List.of()));
    }
  }
}
