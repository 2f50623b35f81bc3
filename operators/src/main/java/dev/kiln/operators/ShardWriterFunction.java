package dev.kiln.operators;

import dev.kiln.operators.fs.WriterStaging;
import dev.kiln.config.IndexConfig;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.ShardResult;
import dev.kiln.route.ShardRouter;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.util.Collector;

/**
 * Shard write stage. Subtask {@code i} of {@code p} owns shards {@code s} with {@code s mod p == i}
 * (the partitioner sends it exactly those chunks) and writes one Lucene index per owned shard into the
 * snapshot's directory. Owned shards that received no chunk are still written, empty, so that the
 * committer can tell an empty shard from a missing one. Each finished shard is merged, probed and
 * described here ({@link ShardFinisher}), on the disk that holds it, and reported to the committer.
 *
 * <p>Of several records with one document id only the first (in source order) is written: the writer
 * resolves duplicates as chunks arrive ({@link WriterDuplicates}), so that nothing in front of it has
 * to hold or sort the whole corpus.
 */
public final class ShardWriterFunction extends RichMapPartitionFunction<EmbeddedChunk, StageReport> {
  private static final long serialVersionUID = 1L;
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ShardWriterFunction.class);

  private final String snapshotsRoot;
  private final String snapshotId;
  private final int shards;
  private final int dimension;
  private final IndexConfig config;
  private final String quarantineDir;
  private transient LongCounter rangeUnparsed;
  private transient LongCounter withoutPositions;
  private transient StageTimer timer;
  private transient WriteMetrics metrics;

  public ShardWriterFunction(String snapshotsRoot, String snapshotId, int shards, int dimension,
      IndexConfig config) {
    this(snapshotsRoot, snapshotId, shards, dimension, config, null);
  }

  /** @param quarantineDir where records that lose to an earlier one with their id are listed, or null: nowhere */
  public ShardWriterFunction(String snapshotsRoot, String snapshotId, int shards, int dimension,
      IndexConfig config, String quarantineDir) {
    this.quarantineDir = quarantineDir;
    this.snapshotsRoot = snapshotsRoot;
    this.snapshotId = snapshotId;
    this.shards = shards;
    this.dimension = dimension;
    this.config = config;
  }

  @Override
  public void open(OpenContext ctx) {
    rangeUnparsed = getRuntimeContext().getLongCounter(JobCounters.RANGE_VALUES_UNPARSED);
    withoutPositions = getRuntimeContext().getLongCounter(JobCounters.SHARDS_WITHOUT_POSITIONS);
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_WRITE);
    metrics = new WriteMetrics(getRuntimeContext().getMetricGroup());
  }

  @Override
  public void mapPartition(Iterable<EmbeddedChunk> chunks, Collector<StageReport> out) throws IOException {
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
    // A retried attempt starts from nothing: what an earlier attempt of this subtask wrote is removed.
    AttemptStaging.clean(snapshotsRoot, snapshotId, null, AttemptStaging.owned(subtask, parallelism, shards));
    // Lucene writes to a local disk; a remote root gets the finished files uploaded afterwards.
    WriterStaging staging = WriterStaging.open(snapshotsRoot, snapshotId, "shards", subtask);
    SnapshotLayout layout = staging.layout();
    Map<Integer, ShardIndexWriter> writers = new TreeMap<>();
    WriterDuplicates duplicates = WriterDuplicates.forChunks(getRuntimeContext(), quarantineDir);
    try (duplicates) {
      for (EmbeddedChunk c : chunks) {
        long start = System.nanoTime();
        int shard = ShardRouter.shardOf(c.chunk().docId(), shards);
        if (shard % parallelism != subtask) {
          throw new IllegalStateException("chunk " + c.chunk().chunkId() + " of shard " + shard
              + " reached writer " + subtask + "/" + parallelism + ": routing is broken");
        }
        ShardIndexWriter w = writers.get(shard);
        if (w == null) {
          w = new ShardIndexWriter(layout.shardDir(snapshotId, shard), config, dimension);
          writers.put(shard, w);
        }
        DocumentWinners.Action action = duplicates.offer(c.chunk().docId(), c.chunk().source(), c.chunk().text());
        if (action == DocumentWinners.Action.REPLACE) {
          w.deleteDocument(c.chunk().docId());
        }
        if (action != DocumentWinners.Action.DROP) {
          w.add(c);
          metrics.chunk();
        }
        dev.kiln.internal.PausePoint.reached("write");
        timer.add(start);
      }
      for (int shard = subtask; shard < shards; shard += parallelism) {
        if (!writers.containsKey(shard)) {
          writers.put(shard, new ShardIndexWriter(layout.shardDir(snapshotId, shard), config, dimension));
        }
      }
      for (ShardIndexWriter w : new ArrayList<>(writers.values())) {
        long start = System.nanoTime();
        w.close();
        timer.add(start);
        if (w.rangeValuesRejected() > 0) {
          rangeUnparsed.add(w.rangeValuesRejected());
          LOG.warn("{}: {} value(s) of range-indexed metadata keys did not parse as their type (index.range-fields):"
              + " exact-match filterable only", w.directory().getFileName(), w.rangeValuesRejected());
        }
      }
      List<ShardResult> finished = new ArrayList<>();
      ShardFinisher.Positions positions = ShardFinisher.Positions.of(snapshotsRoot, snapshotId, withoutPositions);
      for (Map.Entry<Integer, ShardIndexWriter> e : writers.entrySet()) {
        ShardIndexWriter w = e.getValue();
        long start = System.nanoTime();
        metrics.shard(w.directory());
        ShardResult r = ShardFinisher.finish(e.getKey(), w, subtask, config, positions);
        if (staging.remote()) {
          r = r.at(staging.publish(w.directory(), SnapshotLayout.shardKey(snapshotId, e.getKey())));
        }
        timer.add(start);
        finished.add(r);
      }
      // One report per shard; this subtask's counters ride on the first (they are summed by the committer).
      for (int i = 0; i < finished.size(); i++) {
        out.collect(StageReport.shard(finished.get(i), i == 0
            ? StageReports.of("write-shards", getRuntimeContext(), JobCounters.WRITE_STAGE).counters()
            : Map.of()));
      }
      StageReport quarantine = duplicates.report("write-shards", subtask);
      if (quarantine != null) {
        out.collect(quarantine);
      }
    } catch (IOException | RuntimeException e) {
      for (ShardIndexWriter w : writers.values()) {
        try {
          w.close();
        } catch (IOException | RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    } finally {
      staging.close();
    }
  }

}
