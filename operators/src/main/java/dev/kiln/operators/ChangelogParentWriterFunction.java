package dev.kiln.operators;

import dev.kiln.operators.fs.WriterStaging;
import dev.kiln.index.ParentStoreWriter;
import dev.kiln.model.ParentChange;
import dev.kiln.route.ShardRouter;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.operators.fs.FlinkFileSystems;
import dev.kiln.operators.fs.RemoteBaseFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.util.Collector;

/**
 * Parents docstore write stage of a changelog build, the docstore's counterpart of
 * {@link ContinuingShardWriterFunction}: each part starts as a copy of the base's part, loses the
 * parents of removed documents (an upsert's when its first fresh parent arrives) and gains the fresh
 * parents. Emits the live parents of its parts, also summed in {@link JobCounters#CHANGELOG_PARENTS}.
 * On a remote snapshots root the base parts are downloaded and verified into a temporary directory when
 * the function opens and the new parts uploaded, as the shard writer does.
 */
public final class ChangelogParentWriterFunction extends RichMapPartitionFunction<ParentChange, StageReport> {
  private static final long serialVersionUID = 1L;

  private final String snapshotsRoot;
  private final String snapshotId;
  private final String baseId;
  private final RemoteBaseFiles remoteBase;
  private final int shards;
  private transient LongCounter written;
  private transient LongCounter total;
  private transient StageTimer timer;
  /** Where this subtask writes: the root itself, or a remote root's local working directory. */
  private transient volatile WriterStaging staging;

  /** As {@link ContinuingShardWriterFunction#ContinuingShardWriterFunction}'s arguments of the same names. */
  public ChangelogParentWriterFunction(String snapshotsRoot, String snapshotId, String baseId,
      RemoteBaseFiles remoteBase, int shards) {
    if (baseId != null && FlinkFileSystems.isRemote(snapshotsRoot)
        && (remoteBase == null || !baseId.equals(remoteBase.baseId()))) {
      throw new IllegalArgumentException("a changelog build on remote root " + snapshotsRoot
          + " needs the files of its base " + baseId);
    }
    this.snapshotsRoot = snapshotsRoot;
    this.snapshotId = snapshotId;
    this.baseId = baseId;
    this.remoteBase = remoteBase;
    this.shards = shards;
  }

  @Override
  public void open(OpenContext ctx) throws IOException {
    written = getRuntimeContext().getLongCounter(JobCounters.PARENTS_WRITTEN);
    total = getRuntimeContext().getLongCounter(JobCounters.CHANGELOG_PARENTS);
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_WRITE);
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
    staging = WriterStaging.open(snapshotsRoot, snapshotId, "changelog-parents", subtask);
    if (staging.remote() && remoteBase != null) {
      // In open, as the shard writer does: an exception from mapPartition's own thread is fatal to the TaskManager.
      SnapshotLayout layout = staging.layout();
      for (int shard = subtask; shard < shards; shard += parallelism) {
        long start = System.nanoTime();
        remoteBase.fetchParents(shard, layout.parentsDir(baseId, shard));
        timer.add(start);
      }
    }
  }

  @Override
  public void close() {
    if (staging != null) {
      staging.close();
      staging = null;
    }
  }

  private final class Part {
    final ParentStoreWriter writer;
    final Set<String> fresh = new HashSet<>();
    final Set<String> removed = new HashSet<>();

    Part(SnapshotLayout layout, int shard) throws IOException {
      writer = new ParentStoreWriter(layout.parentsDir(snapshotId, shard));
      if (baseId != null) {
        try {
          Path base = layout.parentsDir(baseId, shard); // on a remote root: fetched into staging by open
          if (!Files.isDirectory(base)) {
            throw new IOException("docstore part " + shard + " of base snapshot " + baseId + " is missing: " + base);
          }
          writer.addBase(base);
        } catch (IOException | RuntimeException e) {
          try {
            writer.close();
          } catch (IOException | RuntimeException suppressed) {
            e.addSuppressed(suppressed);
          }
          throw e;
        }
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
    // A retried attempt starts from nothing: what an earlier attempt of this subtask wrote is removed.
    AttemptStaging.clean(snapshotsRoot, snapshotId, SnapshotLayout.PARENTS, AttemptStaging.owned(subtask, parallelism, shards));
    try {
      Written w = write(changes, staging, subtask, parallelism);
      total.add(w.live());
      out.collect(ParentParts.report("write-parents", getRuntimeContext(), w.files()));
    } finally {
      close();
    }
  }

  /** What a subtask wrote: its parts' live parents, and their files described before any upload. */
  private record Written(long live, List<dev.kiln.snapshot.Manifest.FileEntry> files) {}

  /** Writes (and on a remote root uploads) the parts this subtask owns. */
  private Written write(Iterable<ParentChange> changes, WriterStaging staging, int subtask, int parallelism)
      throws IOException {
    SnapshotLayout layout = staging.layout();
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
    List<dev.kiln.snapshot.Manifest.FileEntry> files = ParentParts.describe(layout, snapshotId, parts.keySet());
    for (Map.Entry<Integer, Part> e : parts.entrySet()) {
      live += e.getValue().writer.parents();
      if (staging.remote()) {
        long start = System.nanoTime();
        staging.publish(layout.parentsDir(snapshotId, e.getKey()), SnapshotLayout.parentsKey(snapshotId, e.getKey()));
        timer.add(start);
      }
    }
    return new Written(live, files);
  }

}
