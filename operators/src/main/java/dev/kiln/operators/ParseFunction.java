package dev.kiln.operators;

import dev.kiln.ingest.MalformedRecordException;
import dev.kiln.ingest.RecordParser;
import dev.kiln.model.Document;
import dev.kiln.model.RawRecord;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parse stage: raw records to documents. A record that cannot be parsed goes to the
 * {@link #QUARANTINE} side output with its reason and is counted; it never fails the job.
 */
public final class ParseFunction extends ProcessFunction<RawRecord, Document> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ParseFunction.class);

  public static final OutputTag<QuarantinedRecord> QUARANTINE =
      new OutputTag<>("quarantine") {};

  private final RecordParser parser;
  private transient LongCounter read;
  private transient LongCounter parsed;
  private transient LongCounter quarantined;
  private transient StageTimer timer;

  public ParseFunction(RecordParser parser) {
    this.parser = parser;
  }

  @Override
  public void open(OpenContext ctx) {
    read = getRuntimeContext().getLongCounter(JobCounters.RECORDS_READ);
    parsed = getRuntimeContext().getLongCounter(JobCounters.DOCUMENTS);
    quarantined = getRuntimeContext().getLongCounter(JobCounters.QUARANTINED);
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_PARSE);
  }

  @Override
  public void processElement(RawRecord raw, Context ctx, Collector<Document> out) {
    long start = System.nanoTime();
    read.add(1);
    try {
      Document doc = parser.parse(raw);
      parsed.add(1);
      timer.add(start);
      out.collect(doc);
    } catch (MalformedRecordException e) {
      quarantined.add(1);
      timer.add(start);
      if (quarantined.getLocalValue() <= 20) {
        LOG.warn("quarantined {} @ {}: {}", raw.sourceUri(), raw.offset(), e.getMessage());
      }
      ctx.output(QUARANTINE, QuarantinedRecord.of(raw, e.getMessage()));
    }
  }
}
