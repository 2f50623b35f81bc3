package dev.kiln.operators;

import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.RuntimeContext;

/**
 * Busy time of one stage, summed over its subtasks. Stages of a pipelined job overlap, so wall time
 * per stage is not well defined; the time each stage spends working is, and says where time goes.
 */
final class StageTimer {
  private final LongCounter nanos;

  private StageTimer(LongCounter nanos) {
    this.nanos = nanos;
  }

  static StageTimer register(RuntimeContext ctx, String name) {
    return new StageTimer(ctx.getLongCounter(name));
  }

  /** Adds the time since {@code startNanos}. */
  void add(long startNanos) {
    nanos.add(System.nanoTime() - startNanos);
  }
}
