package dev.kiln.operators;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.util.Collector;

/**
 * Runs a partition writer so that its failure fails its task, and only its task. Flink's batch
 * {@code mapPartition} runs the function on a thread of its own ({@code TaskUDFExecutor}); an exception
 * escaping there reaches Flink's fatal-exit handler, which stops the whole TaskManager JVM (every slot
 * on it, and the test JVM in a mini-cluster), and the task thread waits for the function forever. This
 * wrapper catches whatever the function throws on that thread, lets it return (the task thread then
 * drops the rest of the input), and rethrows it from {@link #close()}, which runs on the task thread:
 * the task fails like any other, and the restart strategy retries it.
 */
public final class TaskThreadFailures<I, O> extends RichMapPartitionFunction<I, O> {
  private static final long serialVersionUID = 1L;

  private final RichMapPartitionFunction<I, O> writer;
  private transient volatile Throwable failure;

  private TaskThreadFailures(RichMapPartitionFunction<I, O> writer) {
    this.writer = writer;
  }

  public static <I, O> TaskThreadFailures<I, O> of(RichMapPartitionFunction<I, O> writer) {
    return new TaskThreadFailures<>(writer);
  }

  @Override
  public void open(OpenContext ctx) throws Exception {
    writer.setRuntimeContext(getRuntimeContext());
    writer.open(ctx);
  }

  @Override
  @SuppressWarnings("IllegalCatch") // the point: nothing may escape the UDF thread
  public void mapPartition(Iterable<I> values, Collector<O> out) {
    try {
      writer.mapPartition(values, out);
    } catch (Throwable t) {
      failure = t;
    }
  }

  @Override
  public void close() throws Exception {
    Throwable t = failure;
    failure = null;
    try {
      writer.close();
    } catch (Exception e) {
      if (t == null) {
        throw e;
      }
      // The writer's own failure is the cause; a failure to close after it rides along.
      t.addSuppressed(e);
    }
    if (t != null) {
      if (t instanceof Exception e) {
        throw e;
      }
      throw new Exception("partition writer failed: " + t, t);
    }
  }
}
