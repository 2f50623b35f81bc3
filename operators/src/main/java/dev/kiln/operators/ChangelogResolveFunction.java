package dev.kiln.operators;

import dev.kiln.model.ChangeOp;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Keeps one op per document id, keyed by id. <b>Rule:</b> of all ops on an id inside the build's
 * offset range, the one with the highest (partition, offset) wins ({@link ChangeOp#supersedes}); the
 * others are counted as superseded. Producers key records by id, so one id lives in one partition and
 * the winner is simply the last op written. Emits the winner when all ops of its id were seen (the
 * end-of-key timer of batch execution), and counts the ids upserted and deleted.
 */
public final class ChangelogResolveFunction extends KeyedProcessFunction<String, ChangeOp, ChangeOp> {
  private static final long serialVersionUID = 1L;

  private transient ValueState<ChangeOp> winner;
  private transient LongCounter documents;
  private transient LongCounter upserts;
  private transient LongCounter deletes;
  private transient LongCounter superseded;

  @Override
  public void open(OpenContext ctx) {
    winner = getRuntimeContext().getState(new ValueStateDescriptor<>("winner", ChangeOp.class));
    documents = getRuntimeContext().getLongCounter(JobCounters.DOCUMENTS);
    upserts = getRuntimeContext().getLongCounter(JobCounters.CHANGELOG_UPSERTS);
    deletes = getRuntimeContext().getLongCounter(JobCounters.CHANGELOG_DELETES);
    superseded = getRuntimeContext().getLongCounter(JobCounters.CHANGELOG_SUPERSEDED);
  }

  @Override
  public void processElement(ChangeOp op, Context ctx, Collector<ChangeOp> out) throws Exception {
    ChangeOp current = winner.value();
    if (current == null) {
      winner.update(op);
      ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
      return;
    }
    superseded.add(1);
    if (op.supersedes(current)) {
      winner.update(op);
    }
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<ChangeOp> out) throws Exception {
    ChangeOp op = winner.value();
    if (op == null) {
      return;
    }
    if (op.kind() == ChangeOp.Kind.UPSERT) {
      upserts.add(1);
      documents.add(1);
    } else {
      deletes.add(1);
    }
    out.collect(op);
    winner.clear();
  }
}
