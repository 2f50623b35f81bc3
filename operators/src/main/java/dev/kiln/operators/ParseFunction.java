package dev.kiln.operators;

import dev.kiln.ingest.MalformedRecordException;
import dev.kiln.ingest.RecordParser;
import dev.kiln.model.Document;
import dev.kiln.model.RawRecord;
import dev.kiln.model.RecordPosition;
import dev.kiln.model.ShardChange;
import dev.kiln.operators.types.KilnTypeInfo;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parse stage: raw records to documents. A record that cannot be parsed goes to the
 * {@link #QUARANTINE} side output with its reason and is counted; it never fails the job (the build
 * fails afterwards only if the bad fraction exceeds {@code ingest.max-bad-fraction}). Reports Flink
 * In an incremental build ({@link BaseDocuments}) a document unchanged since the base snapshot leaves
 * through {@link #UNCHANGED} as its id and record position alone ({@link ShardChange#keep}), straight
 * for the shard writers, and is counted. Reports Flink
 * metrics per corpus root under the group {@code source=<root>}: {@code recordsRead},
 * {@code recordsParsed}, {@code recordsQuarantined}, {@code bytesRead}.
 */
public final class ParseFunction extends ProcessFunction<RawRecord, SourcedDocument>
    implements ReportingStages.EndOfInput {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ParseFunction.class);

  public static final OutputTag<QuarantinedRecord> QUARANTINE =
      new OutputTag<>("quarantine") {};
  /** An incremental build's documents unchanged since its base: the writers keep their base chunks. */
  public static final OutputTag<ShardChange> UNCHANGED = new OutputTag<>("unchanged", KilnTypeInfo.SHARD_CHANGE);

  private final RecordParser parser;
  private final BaseDocuments base;
  private transient LongCounter unchanged;
  private transient LongCounter read;
  private transient LongCounter parsed;
  private transient LongCounter quarantined;
  private transient StageTimer timer;
  private transient Map<String, SourceMetrics> sources;
  /** The last record's file and its root's metrics: records come file by file. */
  private transient String lastUri;
  private transient SourceMetrics lastSource;
  /** Bytes of the corpus read, of this subtask's share of the listed total ({@link StageProgress}). */
  private transient StageProgress progress;

  public ParseFunction(RecordParser parser) {
    this(parser, null);
  }

  /** @param base an incremental build's base documents, or {@code null} for a full build */
  public ParseFunction(RecordParser parser, BaseDocuments base) {
    this.parser = parser;
    this.base = base;
  }

  /** Per-source Flink metrics and accumulators (records read per root, for the bad-fraction report). */
  private record SourceMetrics(Counter read, Counter parsed, Counter quarantined, Counter bytes,
      LongCounter readTotal) {}

  @Override
  public void open(OpenContext ctx) {
    read = getRuntimeContext().getLongCounter(JobCounters.RECORDS_READ);
    parsed = getRuntimeContext().getLongCounter(JobCounters.DOCUMENTS);
    quarantined = getRuntimeContext().getLongCounter(JobCounters.QUARANTINED);
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_PARSE);
    unchanged = getRuntimeContext().getLongCounter(JobCounters.INCREMENTAL_UNCHANGED);
    sources = new HashMap<>();
    progress = StageProgress.register(getRuntimeContext(), "parse", "bytes",
        StageProgress.corpusBytes(getRuntimeContext()));
    for (String root : parser.roots()) {
      MetricGroup g = getRuntimeContext().getMetricGroup().addGroup("source", root);
      sources.put(root, new SourceMetrics(g.counter("recordsRead"), g.counter("recordsParsed"),
          g.counter("recordsQuarantined"), g.counter("bytesRead"),
          getRuntimeContext().getLongCounter(JobCounters.SOURCE_RECORDS_READ_PREFIX + root)));
    }
  }

  @Override
  public void endOfInput() {
    progress.finish();
  }

  /** Sends an unchanged document on as its id and position ({@link ShardChange#keep}), counted. */
  private void keep(RawRecord raw, String id, SourceMetrics source, long start, Context ctx) {
    parsed.add(1);
    if (source != null) {
      source.parsed().inc();
    }
    unchanged.add(1);
    timer.add(start);
    ctx.output(UNCHANGED, ShardChange.keep(id, new RecordPosition(raw.sourceUri(), raw.offset())));
  }

  @Override
  public void processElement(RawRecord raw, Context ctx, Collector<SourcedDocument> out) {
    long start = System.nanoTime();
    read.add(1);
    progress.advance(raw.bytes());
    SourceMetrics source;
    if (raw.sourceUri().equals(lastUri)) {
      source = lastSource;
    } else {
      source = sources.get(parser.rootOf(raw.sourceUri()));
      lastUri = raw.sourceUri();
      lastSource = source;
    }
    if (source != null) {
      source.read().inc();
      source.bytes().inc(raw.bytes());
      source.readTotal().add(1);
    }
    try {
      // An unchanged row is recognised from its fingerprint alone where the parser can take it from
      // the row as read (its text's UTF-8 bytes): most rows of a rebuild are never made documents.
      Boolean kept = base == null ? Boolean.FALSE : base.unchanged(parser, raw);
      if (Boolean.TRUE.equals(kept)) {
        keep(raw, parser.idOrNull(raw.row()), source, start, ctx);
        return;
      }
      Document doc = parser.parse(raw);
      if (kept == null && base.unchanged(doc)) {
        keep(raw, doc.id(), source, start, ctx);
        return;
      }
      parsed.add(1);
      if (source != null) {
        source.parsed().inc();
      }
      timer.add(start);
      out.collect(new SourcedDocument(doc, raw.offset()));
    } catch (MalformedRecordException e) {
      quarantined.add(1);
      if (source != null) {
        source.quarantined().inc();
      }
      timer.add(start);
      if (quarantined.getLocalValue() <= 20) {
        LOG.warn("quarantined {} @ {}: {} ({})", raw.sourceUri(), raw.offset(), e.reason(), e.getMessage());
      }
      ctx.output(QUARANTINE, QuarantinedRecord.of(raw, e.reason(), e.getMessage()));
    }
  }
}
