package dev.kiln.operators;

import dev.kiln.index.ParentStoreWriter;
import dev.kiln.model.ParentChunk;
import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.operators.fs.WriterStaging;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.util.SortedMap;
import org.apache.flink.util.Collector;

/**
 * Parents docstore write stage (parent-child chunking). Routed like chunks, so a subtask owns the
 * shards {@link ShardOwningWriter} says and writes {@code parents/shard-<s>/} for each, empty ones
 * included. Of several records with one document id only the first one's parents are kept ({@link
 * WriterDuplicates}). Reports the files of its parts, described before a remote root gets the upload.
 */
public final class ParentWriterFunction extends ShardOwningWriter<ParentChunk, ParentStoreWriter> {
  private static final long serialVersionUID = 1L;

  private transient WriterDuplicates duplicates;

  public ParentWriterFunction(SnapshotsTarget target, String snapshotId, int shards) {
    super(target, snapshotId, shards, SnapshotLayout.PARENTS, "parents");
  }

  @Override
  protected void beginInput() {
    // The chunk writers quarantine the losing records; this one drops their parents the same way.
    duplicates = WriterDuplicates.forParents(getRuntimeContext());
  }

  @Override
  protected void endInput() throws IOException {
    if (duplicates != null) {
      duplicates.close();
      duplicates = null;
    }
  }

  @Override
  protected String docId(ParentChunk p) {
    return p.docId();
  }

  @Override
  protected String describe(ParentChunk p) {
    return "parent " + p.parentId();
  }

  @Override
  protected ParentStoreWriter openPart(SnapshotLayout layout, int shard) throws IOException {
    return new ParentStoreWriter(layout.parentsDir(snapshotId, shard));
  }

  @Override
  protected void accept(ParentStoreWriter w, ParentChunk p) throws IOException {
    DocumentWinners.Action action = duplicates.offer(p.docId(), p.source(), p.text());
    if (action == DocumentWinners.Action.REPLACE) {
      w.deleteDocument(p.docId());
    }
    if (action != DocumentWinners.Action.DROP) {
      w.add(p);
    }
  }

  @Override
  protected void closePart(ParentStoreWriter w) throws IOException {
    w.close();
  }

  @Override
  protected void finish(SortedMap<Integer, ParentStoreWriter> parts, WriterStaging staging,
      Collector<StageReport> out) throws IOException {
    SnapshotLayout layout = staging.layout();
    var files = ParentParts.describe(layout, snapshotId, parts.keySet());
    for (int shard : parts.keySet()) {
      staging.publish(layout.parentsDir(snapshotId, shard), SnapshotLayout.parentsKey(snapshotId, shard));
    }
    out.collect(ParentParts.report("write-parents", getRuntimeContext(), files));
  }
}
