package dev.kiln.operators;

import dev.kiln.ingest.ChangelogRecordParser;
import dev.kiln.ingest.MalformedRecordException;
import dev.kiln.model.ChangeOp;
import dev.kiln.model.RawRecord;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parse stage of a changelog build: Kafka records to change ops. A record that cannot be used goes to
 * {@link ParseFunction#QUARANTINE} with its reason (the same output and counters as a corpus build),
 * never failing the job. Flink metrics under {@code source=kafka://<topic>}: {@code recordsRead},
 * {@code recordsParsed}, {@code recordsQuarantined}, {@code bytesRead}.
 */
public final class ChangelogParseFunction extends ProcessFunction<RawRecord, ChangeOp> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ChangelogParseFunction.class);

  private final ChangelogRecordParser parser;
  private transient LongCounter read;
  private transient LongCounter readFromSource;
  private transient LongCounter quarantined;
  private transient StageTimer timer;
  private transient Counter metricRead;
  private transient Counter metricParsed;
  private transient Counter metricQuarantined;
  private transient Counter metricBytes;

  public ChangelogParseFunction(ChangelogRecordParser parser) {
    this.parser = parser;
  }

  @Override
  public void open(OpenContext ctx) {
    read = getRuntimeContext().getLongCounter(JobCounters.RECORDS_READ);
    readFromSource = getRuntimeContext().getLongCounter(JobCounters.SOURCE_RECORDS_READ_PREFIX + parser.root());
    quarantined = getRuntimeContext().getLongCounter(JobCounters.QUARANTINED);
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_PARSE);
    MetricGroup g = getRuntimeContext().getMetricGroup().addGroup("source", parser.root());
    metricRead = g.counter("recordsRead");
    metricParsed = g.counter("recordsParsed");
    metricQuarantined = g.counter("recordsQuarantined");
    metricBytes = g.counter("bytesRead");
  }

  @Override
  public void processElement(RawRecord raw, Context ctx, Collector<ChangeOp> out) {
    long start = System.nanoTime();
    read.add(1);
    readFromSource.add(1);
    metricRead.inc();
    metricBytes.inc(raw.bytes());
    try {
      ChangeOp op = parser.parse(raw);
      metricParsed.inc();
      timer.add(start);
      out.collect(op);
    } catch (MalformedRecordException e) {
      quarantined.add(1);
      metricQuarantined.inc();
      timer.add(start);
      if (quarantined.getLocalValue() <= 20) {
        LOG.warn("quarantined {} @ {}: {} ({})", raw.sourceUri(), raw.offset(), e.reason(), e.getMessage());
      }
      ctx.output(ParseFunction.QUARANTINE, QuarantinedRecord.of(raw, e.reason(), e.getMessage()));
    }
  }
}
