package dev.kiln.operators;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.index.ShardSchema;
import dev.kiln.model.ShardChange;
import dev.kiln.model.ShardResult;
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
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;

/**
 * Shard write stage of a changelog build. Routing is the base snapshot's (same shard count, same
 * hash of the doc id), so each shard starts as a copy of the base shard's segments; then every
 * document deleted or upserted in the range loses its base chunks and upserted documents get their
 * fresh chunks. The input arrives in no particular order, so an upsert's base chunks are removed when
 * its first fresh chunk arrives (a Lucene delete affects only documents added before it), and a
 * removal that comes after fresh chunks of the same id is skipped. Local snapshots roots only.
 */
public final class ChangelogShardWriterFunction extends RichMapPartitionFunction<ShardChange, StageReport> {
  private static final long serialVersionUID = 1L;

  private final String snapshotsRoot;
  private final String snapshotId;
  private final String baseId;
  private final int shards;
  private final int dimension;
  private final IndexConfig config;
  private transient LongCounter written;
  private transient LongCounter unknownDeletes;
  private transient LongCounter removedChunks;
  private transient StageTimer timer;

  /** @param baseId the base snapshot under the same root, or {@code null} to start from empty shards */
  public ChangelogShardWriterFunction(String snapshotsRoot, String snapshotId, String baseId, int shards,
      int dimension, IndexConfig config) {
    this.snapshotsRoot = snapshotsRoot;
    this.snapshotId = snapshotId;
    this.baseId = baseId;
    this.shards = shards;
    this.dimension = dimension;
    this.config = config;
  }

  @Override
  public void open(OpenContext ctx) {
    written = getRuntimeContext().getLongCounter(JobCounters.CHUNKS_WRITTEN);
    unknownDeletes = getRuntimeContext().getLongCounter(JobCounters.CHANGELOG_DELETE_UNKNOWN);
    removedChunks = getRuntimeContext().getLongCounter(JobCounters.CHANGELOG_CHUNKS_REMOVED);
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_WRITE);
  }

  /** One shard being written: the writer, a reader of its base, and the ids handled so far. */
  private final class ShardState {
    final ShardIndexWriter writer;
    final DirectoryReader base;
    final Set<String> fresh = new HashSet<>();
    final Set<String> removed = new HashSet<>();

    ShardState(SnapshotLayout layout, int shard) throws IOException {
      writer = new ShardIndexWriter(layout.shardDir(snapshotId, shard), config, dimension);
      if (baseId == null) {
        base = null;
        return;
      }
      Path baseDir = layout.shardDir(baseId, shard);
      if (!Files.isDirectory(baseDir)) {
        writer.close();
        throw new IOException("shard " + shard + " of base snapshot " + baseId + " is missing: " + baseDir);
      }
      writer.addBase(baseDir);
      base = DirectoryReader.open(FSDirectory.open(baseDir));
    }

    /** Removes the base chunks of {@code docId} once; returns how many there were. */
    void removeFromBase(String docId, boolean deleted) throws IOException {
      if (!removed.add(docId)) {
        return;
      }
      long n = base == null ? 0 : liveChunks(base, docId);
      if (n > 0) {
        writer.deleteDocument(docId);
        removedChunks.add(n);
      } else if (deleted) {
        unknownDeletes.add(1);
      }
    }

    void close() throws IOException {
      try {
        writer.close();
      } finally {
        if (base != null) {
          base.close();
          base.directory().close();
        }
      }
    }
  }

  @Override
  public void mapPartition(Iterable<ShardChange> changes, Collector<StageReport> out) throws IOException {
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
    SnapshotLayout layout = new SnapshotLayout(Path.of(snapshotsRoot));
    Map<Integer, ShardState> states = new TreeMap<>();
    try {
      for (ShardChange change : changes) {
        long start = System.nanoTime();
        String docId = change.docId();
        int shard = ShardRouter.shardOf(docId, shards);
        if (shard % parallelism != subtask) {
          throw new IllegalStateException("change of " + docId + " for shard " + shard + " reached writer "
              + subtask + "/" + parallelism + ": routing is broken");
        }
        ShardState s = states.get(shard);
        if (s == null) {
          s = new ShardState(layout, shard);
          states.put(shard, s);
        }
        if (change.chunk() != null) {
          if (s.fresh.add(docId)) {
            s.removeFromBase(docId, false);
          }
          s.writer.add(change.chunk());
          written.add(1);
        } else if (!s.fresh.contains(docId)) {
          s.removeFromBase(docId, change.deleted());
        }
        timer.add(start);
      }
      for (int shard = subtask; shard < shards; shard += parallelism) {
        if (!states.containsKey(shard)) {
          states.put(shard, new ShardState(layout, shard));
        }
      }
      for (ShardState s : states.values()) {
        long start = System.nanoTime();
        s.close();
        timer.add(start);
      }
    } catch (IOException | RuntimeException e) {
      for (ShardState s : states.values()) {
        try {
          s.close();
        } catch (IOException | RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
    boolean first = true;
    for (Map.Entry<Integer, ShardState> e : states.entrySet()) {
      long start = System.nanoTime();
      ShardResult r = ShardFinisher.finish(e.getKey(), e.getValue().writer, subtask, config);
      timer.add(start);
      out.collect(StageReport.shard(r, first
          ? StageReports.of("write-shards", getRuntimeContext(), JobCounters.WRITE_STAGE).counters() : Map.of()));
      first = false;
    }
  }

  /** Live chunks of {@code docId} in {@code reader}. */
  static long liveChunks(DirectoryReader reader, String docId) throws IOException {
    long n = 0;
    Term term = new Term(ShardSchema.DOC_ID, docId);
    for (LeafReaderContext leaf : reader.leaves()) {
      PostingsEnum p = leaf.reader().postings(term, PostingsEnum.NONE);
      if (p == null) {
        continue;
      }
      Bits live = leaf.reader().getLiveDocs();
      for (int d = p.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = p.nextDoc()) {
        if (live == null || live.get(d)) {
          n++;
        }
      }
    }
    return n;
  }
}
