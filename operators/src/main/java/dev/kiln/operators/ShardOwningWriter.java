package dev.kiln.operators;

import dev.kiln.operators.fs.BaseShard;
import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.operators.fs.WriterStaging;
import dev.kiln.route.ShardRouter;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.util.Collector;
import org.slf4j.LoggerFactory;

/**
 * The skeleton every writer stage shares, whatever it writes (shards or docstore parts) and whatever
 * it starts from (nothing, or a base snapshot). Subtask {@code i} of {@code p} owns the shards {@code
 * s} with {@code s mod p == i}, and the partitioner sends it exactly their input. A writer:
 *
 * <ol>
 *   <li>opens its staging from the target ({@link SnapshotsTarget#staging}: in place, or a local
 *       directory whose results are uploaded) and, when it continues a base, gets the base's files of
 *       its shards there ({@link #openBase}, in {@code open}: Flink runs {@code mapPartition} on a
 *       thread of its own and takes anything thrown there as fatal to the whole TaskManager, while a
 *       failure in {@code open} fails this task like any other);
 *   <li>removes what an earlier attempt of this subtask left ({@link AttemptStaging}), so a retry
 *       produces exactly what a first attempt would;
 *   <li>routes each input to the part of its shard, opened on first use, refusing input of a shard
 *       it does not own (broken routing would otherwise write a shard twice);
 *   <li>opens the owned shards that received nothing, so that the committer can tell an empty shard
 *       from a missing one;
 *   <li>closes every part — each one even when another fails, the first failure thrown with the
 *       others attached — and hands them to {@link #finish}, which describes, uploads and reports;
 *   <li>removes its staging, whatever happened.
 * </ol>
 *
 * @param <IN> what the writer receives
 * @param <P> one open part: a shard's index writer, or a docstore part
 */
public abstract class ShardOwningWriter<IN, P> extends RichMapPartitionFunction<IN, StageReport> {
  private static final long serialVersionUID = 1L;

  protected final SnapshotsTarget target;
  protected final String snapshotId;
  protected final int shards;
  /** The directory under the snapshot whose per-shard parts this writer owns: {@code null} for the shards. */
  private final String partsDir;
  /** Names a remote root's temporary directory. */
  private final String purpose;
  protected transient StageTimer timer;
  /** Inputs written: logged and shown as gauges ({@link StageProgress}); the input's size is not known here. */
  private transient StageProgress progress;
  /** Where this subtask writes: the root itself, or a remote root's local working directory. */
  private transient volatile WriterStaging staging;

  protected ShardOwningWriter(SnapshotsTarget target, String snapshotId, int shards, String partsDir,
      String purpose) {
    this.target = target;
    this.snapshotId = snapshotId;
    this.shards = shards;
    this.partsDir = partsDir;
    this.purpose = purpose;
  }

  /** Shard ids of the input: routing decides by the document id. */
  protected abstract String docId(IN in);

  /** What a routing failure names the input as ("chunk doc#3", "parent doc#p0"). */
  protected abstract String describe(IN in);

  /** Opens the part of {@code shard} under {@code layout} (the staging's). */
  protected abstract P openPart(SnapshotLayout layout, int shard) throws IOException;

  /** Writes one input into its shard's part. */
  protected abstract void accept(P part, IN in) throws IOException;

  /** Closes one part (an incremental shard first removes what its base no longer has). */
  protected abstract void closePart(P part) throws IOException;

  /** Describes, uploads ({@link WriterStaging#publish}) and reports the closed parts, by shard. */
  protected abstract void finish(SortedMap<Integer, P> parts, WriterStaging staging, Collector<StageReport> out)
      throws IOException;

  /** Registers the writer's counters; called by {@link #open} before the staging exists. */
  protected void openCounters() {}

  /**
   * Gets the base's files of the owned shards into the staging's layout, when this writer continues a
   * base; nothing by default.
   */
  protected void openBase(SnapshotLayout layout, List<Integer> owned) throws IOException {}

  /** Called before the first input of {@link #mapPartition}. */
  protected void beginInput() throws IOException {}

  /** Called last, whatever happened (a resource opened by {@link #beginInput} is released here). */
  protected void endInput() throws IOException {}

  @Override
  public final void open(OpenContext ctx) throws IOException {
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_WRITE);
    progress = StageProgress.register(getRuntimeContext(), partsDir == null ? "write-shards" : "write-parents",
        "records", -1);
    openCounters();
    staging = target.staging(snapshotId, purpose, subtask());
    openBase(staging.layout(), owned());
  }

  /** Releases what {@link #openBase} opened; called on close, before the staging is removed. Never throws. */
  protected void closeBase() {}

  /** Closes each base part a writer continued; one that fails is logged, not thrown (see {@link #closeBase}). */
  static void closeAll(Collection<BaseShard> bases, String what) {
    for (BaseShard b : bases) {
      try {
        b.close();
      } catch (IOException | RuntimeException e) {
        LoggerFactory.getLogger(ShardOwningWriter.class).warn("cannot close {} {}: {}", what, b, e.toString());
      }
    }
  }

  @Override
  public final void close() {
    closeBase();
    if (staging != null) {
      staging.close();
      staging = null;
    }
  }

  @Override
  public final void mapPartition(Iterable<IN> input, Collector<StageReport> out) throws IOException {
    int subtask = subtask();
    int parallelism = parallelism();
    AttemptStaging.clean(target, snapshotId, partsDir, owned());
    SnapshotLayout layout = staging.layout();
    SortedMap<Integer, P> parts = new TreeMap<>();
    try {
      beginInput();
      try {
        for (IN in : input) {
          long start = System.nanoTime();
          int shard = ShardRouter.shardOf(docId(in), shards);
          if (shard % parallelism != subtask) {
            throw new IllegalStateException(describe(in) + " of shard " + shard + " reached writer " + subtask + "/"
                + parallelism + " of " + getRuntimeContext().getTaskInfo().getTaskName() + ": routing is broken");
          }
          P part = parts.get(shard);
          if (part == null) {
            part = openPart(layout, shard);
            parts.put(shard, part);
          }
          accept(part, in);
          timer.add(start);
          progress.advance(1);
        }
        for (int shard : owned()) {
          if (!parts.containsKey(shard)) {
            parts.put(shard, openPart(layout, shard));
          }
        }
      } catch (IOException | RuntimeException e) {
        closeAll(parts, e);
        throw e;
      }
      closeAll(parts, null);
      finish(parts, staging, out);
      progress.finish();
    } finally {
      try {
        endInput();
      } finally {
        close();
      }
    }
  }

  /**
   * Closes every part. With {@code failure} (the input failed) each close failure is attached to it;
   * otherwise the first close failure is thrown after all were tried, the others attached.
   */
  private void closeAll(SortedMap<Integer, P> parts, Exception failure) throws IOException {
    Exception first = null;
    for (P part : parts.values()) {
      long start = System.nanoTime();
      try {
        closePart(part);
      } catch (IOException | RuntimeException e) {
        if (failure != null) {
          failure.addSuppressed(e);
        } else if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
      timer.add(start);
    }
    if (first instanceof IOException e) {
      throw e;
    }
    if (first instanceof RuntimeException e) {
      throw e;
    }
  }

  protected final int subtask() {
    return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
  }

  protected final int parallelism() {
    return getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
  }

  /** The shards this subtask owns: {@code shard mod writers == subtask}. */
  protected final List<Integer> owned() {
    return AttemptStaging.owned(subtask(), parallelism(), shards);
  }
}
