package dev.kiln.operators;

import dev.kiln.ingest.QuarantineReason;
import dev.kiln.model.Document;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Keeps one document per id, keyed by document id: an incremental build's deduplication (a full build
 * resolves duplicates in its shard writers instead, {@link DocumentWinners}, without a sort in front of
 * them; an incremental build cannot: a base document's chunks, once deleted, cannot come back when an
 * unchanged copy of it turns out to win). <b>Rule:</b> the record that comes first in
 * (source URI, byte offset) order wins; every other record with the same id is quarantined as
 * {@code duplicate_id}, naming the winner. The rule depends only on where records are, never on which
 * reader ran first, so a rebuild of the same corpus keeps the same documents.
 *
 * <p>In an incremental build a winner found unchanged since the base snapshot goes to {@link #KEPT}
 * as its id alone: the shard writer keeps its base chunks.
 *
 * <p>In batch execution keyed input arrives sorted by key and the end-of-key timer fires once all
 * records of a key were seen, so only one document per key is held at a time.
 */
public final class DeduplicateFunction extends KeyedProcessFunction<String, SourcedDocument, SourcedDocument> {
  private static final long serialVersionUID = 1L;
  /** Ids of unchanged documents whose base chunks stay (incremental builds). */
  public static final OutputTag<String> KEPT = new OutputTag<>("kept") {};

  private transient ValueState<SourcedDocument> kept;
  private transient LongCounter documents;
  private transient LongCounter quarantined;

  @Override
  public void open(OpenContext ctx) {
    kept = getRuntimeContext().getState(new ValueStateDescriptor<>("kept", SourcedDocument.class));
    documents = getRuntimeContext().getLongCounter(JobCounters.DOCUMENTS);
    quarantined = getRuntimeContext().getLongCounter(JobCounters.QUARANTINED);
  }

  @Override
  public void processElement(SourcedDocument doc, Context ctx, Collector<SourcedDocument> out) throws Exception {
    SourcedDocument current = kept.value();
    if (current == null) {
      kept.update(doc);
      ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
      return;
    }
    SourcedDocument loser = doc;
    if (doc.precedes(current)) {
      kept.update(doc);
      loser = current;
    }
    SourcedDocument winner = kept.value();
    documents.add(-1);
    quarantined.add(1);
    Document d = loser.document();
    ctx.output(ParseFunction.QUARANTINE, QuarantinedRecord.of(d.sourceUri(), loser.offset(),
        QuarantineReason.DUPLICATE_ID, "duplicate id '" + d.id() + "': kept the record at "
            + winner.document().sourceUri() + " @ " + winner.offset()
            + (loser.unchanged() ? " (this copy is unchanged since the base snapshot: its text is not repeated here)" : ""),
        d.title().isEmpty() ? d.text() : d.title() + " " + d.text()));
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<SourcedDocument> out) throws Exception {
    SourcedDocument doc = kept.value();
    if (doc != null) {
      if (doc.unchanged()) {
        ctx.output(KEPT, doc.document().id());
      } else {
        out.collect(doc);
      }
      kept.clear();
    }
  }
}
