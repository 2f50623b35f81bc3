package dev.kiln.operators;

import dev.kiln.operators.fs.WriterStaging;
import dev.kiln.index.ParentStoreWriter;
import dev.kiln.model.ParentChunk;
import dev.kiln.route.ShardRouter;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.util.Collector;

/**
 * Parents docstore write stage (parent-child chunking). Routed like chunks, so subtask {@code i} of
 * {@code p} owns shards {@code s mod p == i} and writes {@code parents/shard-<s>/} for each, empty
 * ones included. Of several records with one document id only the first one's parents are kept
 * ({@link WriterDuplicates}). Emits the number of parents it wrote. A remote snapshots root gets the parts written
 * on local disk first and uploaded, as {@link ShardWriterFunction} does with shards.
 */
public final class ParentWriterFunction extends RichMapPartitionFunction<ParentChunk, StageReport> {
  private static final long serialVersionUID = 1L;

  private final String snapshotsRoot;
  private final String snapshotId;
  private final int shards;
  private transient StageTimer timer;

  public ParentWriterFunction(String snapshotsRoot, String snapshotId, int shards) {
    this.snapshotsRoot = snapshotsRoot;
    this.snapshotId = snapshotId;
    this.shards = shards;
  }

  @Override
  public void open(OpenContext ctx) {
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_WRITE);
  }

  @Override
  public void mapPartition(Iterable<ParentChunk> parents, Collector<StageReport> out) throws IOException {
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
    // A retried attempt starts from nothing: what an earlier attempt of this subtask wrote is removed.
    AttemptStaging.clean(snapshotsRoot, snapshotId, SnapshotLayout.PARENTS, AttemptStaging.owned(subtask, parallelism, shards));
    try (WriterStaging staging = WriterStaging.open(snapshotsRoot, snapshotId, "parents", subtask)) {
      out.collect(ParentParts.report("write-parents", getRuntimeContext(), write(parents, staging, subtask, parallelism)));
    }
  }

  /** Writes, describes and (on a remote root) uploads the parts this subtask owns. */
  private List<dev.kiln.snapshot.Manifest.FileEntry> write(Iterable<ParentChunk> parents, WriterStaging staging,
      int subtask, int parallelism) throws IOException {
    SnapshotLayout layout = staging.layout();
    Map<Integer, ParentStoreWriter> writers = new TreeMap<>();
    // The chunk writers quarantine the losing records; this one drops their parents the same way.
    WriterDuplicates duplicates = WriterDuplicates.forParents(getRuntimeContext());
    try {
      for (ParentChunk p : parents) {
        long start = System.nanoTime();
        int shard = ShardRouter.shardOf(p.docId(), shards);
        if (shard % parallelism != subtask) {
          throw new IllegalStateException("parent " + p.parentId() + " of shard " + shard
              + " reached docstore writer " + subtask + "/" + parallelism + ": routing is broken");
        }
        ParentStoreWriter w = writers.get(shard);
        if (w == null) {
          w = new ParentStoreWriter(layout.parentsDir(snapshotId, shard));
          writers.put(shard, w);
        }
        DocumentWinners.Action action = duplicates.offer(p.docId(), p.source(), p.text());
        if (action == DocumentWinners.Action.REPLACE) {
          w.deleteDocument(p.docId());
        }
        if (action != DocumentWinners.Action.DROP) {
          w.add(p);
        }
        timer.add(start);
      }
      for (int shard = subtask; shard < shards; shard += parallelism) {
        if (!writers.containsKey(shard)) {
          writers.put(shard, new ParentStoreWriter(layout.parentsDir(snapshotId, shard)));
        }
      }
    } catch (IOException | RuntimeException e) {
      for (ParentStoreWriter w : writers.values()) {
        try {
          w.close();
        } catch (IOException | RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
    // Every part is closed even when one fails; the first failure is thrown with the others attached.
    IOException failure = null;
    for (ParentStoreWriter w : writers.values()) {
      try {
        w.close();
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
    List<dev.kiln.snapshot.Manifest.FileEntry> files = ParentParts.describe(layout, snapshotId, writers.keySet());
    if (staging.remote()) {
      for (int shard : writers.keySet()) {
        staging.publish(layout.parentsDir(snapshotId, shard), SnapshotLayout.parentsKey(snapshotId, shard));
      }
    }
    return files;
  }

}
