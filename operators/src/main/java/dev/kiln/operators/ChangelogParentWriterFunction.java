package dev.kiln.operators;

import dev.kiln.index.ParentStoreWriter;
import dev.kiln.model.ParentChange;
import dev.kiln.operators.fs.BaseFiles;
import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.operators.fs.WriterStaging;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.util.Collector;

/**
 * Parents docstore write stage of a changelog build, the docstore's counterpart of
 * {@link ContinuingShardWriterFunction}: each part starts as a copy of the base's part, loses the
 * parents of removed documents (an upsert's when its first fresh parent arrives) and gains the fresh
 * parents. Emits the live parents of its parts, also summed in {@link JobCounters#CHANGELOG_PARENTS}.
 * The base parts reach it as its target gives them ({@link SnapshotsTarget#base}), as the shard
 * writer's base shards do.
 */
public final class ChangelogParentWriterFunction
    extends ShardOwningWriter<ParentChange, ChangelogParentWriterFunction.Part> {
  private static final long serialVersionUID = 1L;

  /** The base's files, or {@code null} to start from empty parts. */
  private final BaseFiles base;
  private transient LongCounter written;
  private transient LongCounter total;

  /** As {@link ContinuingShardWriterFunction#ContinuingShardWriterFunction}'s arguments of the same names. */
  public ChangelogParentWriterFunction(SnapshotsTarget target, String snapshotId, BaseFiles base, int shards) {
    super(target, snapshotId, shards, SnapshotLayout.PARENTS, "changelog-parents");
    this.base = base;
  }

  @Override
  protected void openCounters() {
    written = getRuntimeContext().getLongCounter(JobCounters.PARENTS_WRITTEN);
    total = getRuntimeContext().getLongCounter(JobCounters.CHANGELOG_PARENTS);
  }

  @Override
  protected void openBase(SnapshotLayout layout, List<Integer> owned) throws IOException {
    if (base != null) {
      for (int shard : owned) {
        long start = System.nanoTime();
        base.fetchParents(shard, layout.parentsDir(base.baseId(), shard));
        timer.add(start);
      }
    }
  }

  /** One docstore part: the base's parents, less the removed documents', plus the fresh ones. */
  static final class Part {
    final int shard;
    final ParentStoreWriter writer;
    final Set<String> fresh = new HashSet<>();
    final Set<String> removed = new HashSet<>();

    Part(int shard, ParentStoreWriter writer) {
      this.shard = shard;
      this.writer = writer;
    }

    void remove(String docId) throws IOException {
      if (removed.add(docId)) {
        writer.deleteDocument(docId);
      }
    }
  }

  @Override
  protected String docId(ParentChange change) {
    return change.docId();
  }

  @Override
  protected String describe(ParentChange change) {
    return "parent change of " + change.docId();
  }

  @Override
  protected Part openPart(SnapshotLayout layout, int shard) throws IOException {
    ParentStoreWriter writer = new ParentStoreWriter(layout.parentsDir(snapshotId, shard));
    if (base != null) {
      try {
        writer.addBase(layout.parentsDir(base.baseId(), shard)); // where openBase put it
      } catch (IOException | RuntimeException e) {
        try {
          writer.close();
        } catch (IOException | RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    }
    return new Part(shard, writer);
  }

  @Override
  protected void accept(Part part, ParentChange change) throws IOException {
    String docId = change.docId();
    if (change.parent() != null) {
      if (part.fresh.add(docId)) {
        part.remove(docId);
      }
      part.writer.add(change.parent());
      written.add(1);
    } else if (!part.fresh.contains(docId)) {
      part.remove(docId);
    }
  }

  @Override
  protected void closePart(Part part) throws IOException {
    part.writer.close();
  }

  @Override
  protected void finish(SortedMap<Integer, Part> parts, WriterStaging staging, Collector<StageReport> out)
      throws IOException {
    SnapshotLayout layout = staging.layout();
    long live = 0;
    var files = ParentParts.describe(layout, snapshotId, parts.keySet());
    for (Part part : parts.values()) {
      live += part.writer.parents();
      long start = System.nanoTime();
      staging.publish(layout.parentsDir(snapshotId, part.shard), SnapshotLayout.parentsKey(snapshotId, part.shard));
      timer.add(start);
    }
    total.add(live);
    out.collect(ParentParts.report("write-parents", getRuntimeContext(), files));
  }
}
