package dev.kiln.operators;

import dev.kiln.index.ParentStoreWriter;
import dev.kiln.model.ParentChange;
import dev.kiln.route.ShardRouter;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.util.Collector;

/**
 * Parents docstore write stage of a changelog build, the docstore's counterpart of
 * {@link ChangelogShardWriterFunction}: each part starts as a copy of the base's part, loses the
 * parents of removed documents (an upsert's when its first fresh parent arrives) and gains the fresh
 * parents. Emits the live parents of its parts, also summed in {@link JobCounters#CHANGELOG_PARENTS}.
 */
public final class ChangelogParentWriterFunction extends RichMapPartitionFunction<ParentChange, StageReport> {
  private static final long serialVersionUID = 1L;

  private final String snapshotsRoot;
  private final String snapshotId;
  private final String baseId;
  private final int shards;
  private transient LongCounter written;
  private transient LongCounter total;
  private transient StageTimer timer;

  public ChangelogParentWriterFunction(String snapshotsRoot, String snapshotId, String baseId, int shards) {
    this.snapshotsRoot = snapshotsRoot;
    this.snapshotId = snapshotId;
    this.baseId = baseId;
    this.shards = shards;
  }

  @Override
  public void open(OpenContext ctx) {
    written = getRuntimeContext().getLongCounter(JobCounters.PARENTS_WRITTEN);
    total = getRuntimeContext().getLongCounter(JobCounters.CHANGELOG_PARENTS);
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_WRITE);
  }

  private final class Part {
    final ParentStoreWriter writer;
    final Set<String> fresh = new HashSet<>();
    final Set<String> removed = new HashSet<>();

    Part(SnapshotLayout layout, int shard) throws IOException {
      writer = new ParentStoreWriter(layout.parentsDir(snapshotId, shard));
      if (baseId != null) {
        Path base = layout.parentsDir(baseId, shard);
        if (!Files.isDirectory(base)) {
          writer.close();
          throw new IOException("docstore part " + shard + " of base snapshot " + baseId + " is missing: " + base);
        }
        writer.addBase(base);
      }
    }

    void remove(String docId) throws IOException {
      if (removed.add(docId)) {
        writer.deleteDocument(docId);
      }
    }
  }

  @Override
  public void mapPartition(Iterable<ParentChange> changes, Collector<StageReport> out) throws IOException {
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
    SnapshotLayout layout = new SnapshotLayout(Path.of(snapshotsRoot));
    Map<Integer, Part> parts = new TreeMap<>();
    IOException failure = null;
    try {
      for (ParentChange change : changes) {
        long start = System.nanoTime();
        String docId = change.docId();
        int shard = ShardRouter.shardOf(docId, shards);
        if (shard % parallelism != subtask) {
          throw new IllegalStateException("parent change of " + docId + " for shard " + shard
              + " reached docstore writer " + subtask + "/" + parallelism + ": routing is broken");
        }
        Part part = parts.get(shard);
        if (part == null) {
          part = new Part(layout, shard);
          parts.put(shard, part);
        }
        if (change.parent() != null) {
          if (part.fresh.add(docId)) {
            part.remove(docId);
          }
          part.writer.add(change.parent());
          written.add(1);
        } else if (!part.fresh.contains(docId)) {
          part.remove(docId);
        }
        timer.add(start);
      }
      for (int shard = subtask; shard < shards; shard += parallelism) {
        if (!parts.containsKey(shard)) {
          parts.put(shard, new Part(layout, shard));
        }
      }
    } finally {
      for (Part part : parts.values()) {
        try {
          part.writer.close();
        } catch (IOException e) {
          failure = e;
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
    long live = 0;
    for (Part part : parts.values()) {
      live += part.writer.parents();
    }
    total.add(live);
    out.collect(ParentParts.report("write-parents", getRuntimeContext(),
        ParentParts.describe(layout, snapshotId, parts.keySet())));
  }
}
