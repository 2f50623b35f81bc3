package dev.kiln.operators;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.internal.PausePoint;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.ShardResult;
import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.operators.fs.WriterStaging;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shard write stage of a build from nothing: one Lucene index per owned shard ({@link
 * ShardOwningWriter} says which shards a subtask owns and where it writes). Each finished shard is
 * merged, probed and described here ({@link ShardFinisher}), on the disk that holds it, uploaded to a
 * remote root, and reported to the committer.
 *
 * <p>Of several records with one document id only the first (in source order) is written: the writer
 * resolves duplicates as chunks arrive ({@link WriterDuplicates}), so that nothing in front of it has
 * to hold or sort the whole corpus.
 */
public final class ShardWriterFunction extends ShardOwningWriter<EmbeddedChunk, ShardIndexWriter> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ShardWriterFunction.class);

  private final int dimension;
  private final IndexConfig config;
  private final String quarantineDir;
  private transient LongCounter rangeUnparsed;
  private transient LongCounter withoutPositions;
  private transient WriteMetrics metrics;
  private transient WriterDuplicates duplicates;

  public ShardWriterFunction(SnapshotsTarget target, String snapshotId, int shards, int dimension,
      IndexConfig config) {
    this(target, snapshotId, shards, dimension, config, null);
  }

  /** @param quarantineDir where records that lose to an earlier one with their id are listed, or null: nowhere */
  public ShardWriterFunction(SnapshotsTarget target, String snapshotId, int shards, int dimension,
      IndexConfig config, String quarantineDir) {
    super(target, snapshotId, shards, null, "shards");
    this.quarantineDir = quarantineDir;
    this.dimension = dimension;
    this.config = config;
  }

  private transient LongCounter uploaded;
  @Override
  protected void openCounters() {
    rangeUnparsed = getRuntimeContext().getLongCounter(JobCounters.RANGE_VALUES_UNPARSED);
    withoutPositions = getRuntimeContext().getLongCounter(JobCounters.SHARDS_WITHOUT_POSITIONS);
    uploaded = getRuntimeContext().getLongCounter(JobCounters.SHARD_BYTES_UPLOADED);
    metrics = new WriteMetrics(getRuntimeContext().getMetricGroup());
  }

  @Override
  protected void beginInput() throws IOException {
    duplicates = WriterDuplicates.forChunks(getRuntimeContext(), quarantineDir);
  }

  @Override
  protected void endInput() throws IOException {
    if (duplicates != null) {
      duplicates.close();
      duplicates = null;
    }
  }

  @Override
  protected String docId(EmbeddedChunk c) {
    return c.chunk().docId();
  }

  @Override
  protected String describe(EmbeddedChunk c) {
    return "chunk " + c.chunk().chunkId();
  }

  @Override
  protected ShardIndexWriter openPart(SnapshotLayout layout, int shard) throws IOException {
    return new ShardIndexWriter(layout.shardDir(snapshotId, shard), config, dimension);
  }

  @Override
  protected void accept(ShardIndexWriter w, EmbeddedChunk c) throws IOException {
    DocumentWinners.Action action = duplicates.offer(c.chunk().docId(), c.chunk().source(), c.chunk().text());
    if (action == DocumentWinners.Action.REPLACE) {
      w.deleteDocument(c.chunk().docId());
    }
    if (action != DocumentWinners.Action.DROP) {
      w.add(c);
      metrics.chunk();
    }
    PausePoint.reached("write");
  }

  @Override
  protected void closePart(ShardIndexWriter w) throws IOException {
    w.close();
    if (w.rangeValuesRejected() > 0) {
      rangeUnparsed.add(w.rangeValuesRejected());
      LOG.warn("{}: {} value(s) of range-indexed metadata keys did not parse as their type (index.range-fields):"
          + " exact-match filterable only", w.directory().getFileName(), w.rangeValuesRejected());
    }
  }

  @Override
  protected void finish(SortedMap<Integer, ShardIndexWriter> writers, WriterStaging staging,
      Collector<StageReport> out) throws IOException {
    ShardFinisher.Positions positions = ShardFinisher.Positions.of(target, snapshotId, withoutPositions);
    List<ShardResult> results = new ArrayList<>();
    for (Map.Entry<Integer, ShardIndexWriter> e : writers.entrySet()) {
      ShardIndexWriter w = e.getValue();
      long start = System.nanoTime();
      metrics.shard(w.directory());
      ShardResult r = ShardFinisher.finish(e.getKey(), w, subtask(), config, positions);
      r = staging.publish(r, w.directory(), SnapshotLayout.shardKey(snapshotId, e.getKey()));
      uploaded.add(staging.uploadedBytes(r));
      timer.add(start);
      results.add(r);
    }
    // One report per shard; this subtask's counters, complete once every shard is published, ride on the
    // first (the committer sums them).
    boolean first = true;
    for (ShardResult r : results) {
      out.collect(StageReport.shard(r, first
          ? StageReports.of("write-shards", getRuntimeContext(), JobCounters.WRITE_STAGE).counters() : Map.of()));
      first = false;
    }
    StageReport quarantine = duplicates.report("write-shards", subtask());
    if (quarantine != null) {
      out.collect(quarantine);
    }
  }
}
