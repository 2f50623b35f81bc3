package dev.kiln.operators;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.ShardResult;
import dev.kiln.route.ShardRouter;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.accumulators.ListAccumulator;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.util.Collector;

/**
 * Shard write stage. Subtask {@code i} of {@code p} owns shards {@code s} with {@code s mod p == i}
 * (the partitioner sends it exactly those chunks) and writes one Lucene index per owned shard into the
 * snapshot's directory. Owned shards that received no chunk are still written, empty, so that the
 * merger can tell an empty shard from a missing one.
 */
public final class ShardWriterFunction extends RichMapPartitionFunction<EmbeddedChunk, ShardResult> {
  private static final long serialVersionUID = 1L;
  public static final String RESULTS = "kiln.shard-results";

  private final String snapshotsRoot;
  private final String snapshotId;
  private final int shards;
  private final int dimension;
  private final IndexConfig config;
  private transient ListAccumulator<ShardResult> results;
  private transient LongCounter written;
  private transient StageTimer timer;

  public ShardWriterFunction(String snapshotsRoot, String snapshotId, int shards, int dimension,
      IndexConfig config) {
    this.snapshotsRoot = snapshotsRoot;
    this.snapshotId = snapshotId;
    this.shards = shards;
    this.dimension = dimension;
    this.config = config;
  }

  @Override
  public void open(OpenContext ctx) {
    results = new ListAccumulator<>();
    getRuntimeContext().addAccumulator(RESULTS, results);
    written = getRuntimeContext().getLongCounter(JobCounters.CHUNKS_WRITTEN);
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_WRITE);
  }

  @Override
  public void mapPartition(Iterable<EmbeddedChunk> chunks, Collector<ShardResult> out) throws IOException {
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
    SnapshotLayout layout = new SnapshotLayout(Path.of(snapshotsRoot));
    Map<Integer, ShardIndexWriter> writers = new TreeMap<>();
    try {
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
        w.add(c);
        dev.kiln.internal.PausePoint.reached("write");
        written.add(1);
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
      }
      for (Map.Entry<Integer, ShardIndexWriter> e : writers.entrySet()) {
        ShardIndexWriter w = e.getValue();
        ShardResult r = new ShardResult(e.getKey(), w.directory().toString(), w.chunks(), w.documents(), subtask);
        results.add(r);
        out.collect(r);
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
    }
  }
}
