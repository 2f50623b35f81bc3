package dev.kiln.operators;

import dev.kiln.operators.fs.WriterStaging;
import dev.kiln.config.IndexConfig;
import dev.kiln.ingest.CorpusFileEnumerator;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.model.ShardChange;
import dev.kiln.model.ShardResult;
import dev.kiln.route.ShardRouter;
import dev.kiln.vectors.KeyBits;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.operators.fs.FlinkFileSystems;
import dev.kiln.operators.fs.RemoteBaseFiles;
import java.io.IOException;
import java.util.Set;
import org.apache.flink.api.common.accumulators.LongCounter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import dev.kiln.snapshot.Manifest;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shard write stage of a build that continues a base snapshot: a changelog build, or an incremental
 * corpus build. Routing is the base snapshot's (same shard count, same hash of the doc id), so each
 * shard starts as the base shard's segments (hard-linked, {@link ShardIndexWriter#continuing}); then
 * every document deleted or upserted loses its base chunks and upserted documents get their fresh
 * chunks. The input arrives in no particular order, so an upsert's base chunks are removed when its
 * first fresh chunk arrives (a Lucene delete affects only documents added before it), and a removal
 * that comes after fresh chunks of the same id is skipped.
 *
 * <p>An incremental build ({@code prune}) says which base documents stay ({@link ShardChange.Kind#KEEP},
 * each with its record's position) instead of which go, and resolves duplicate ids here over unchanged
 * and fresh records alike ({@link ContinuedShard}, {@link WriterDuplicates}); once the input ends, every
 * base document neither kept nor re-added is removed (it left the corpus, or no longer parses), and the
 * shard keeps its base segments instead of being merged down to {@code index.max-segments}, which would
 * rebuild every HNSW graph.
 *
 * <p>An incremental build may also leave unread the corpus files unchanged since its base (same size and
 * modification time, {@code corpus-files.tsv}): each shard then keeps the base documents read from them,
 * each taking part in deduplication as the unchanged record it would have been, at its recorded position
 * ({@link ContinuedShard#keepUnread}), and counts them as {@code records.unread}.
 *
 * <p>On a remote snapshots root ({@code s3://}, {@code hdfs://}) Lucene still works on a local disk:
 * each base shard this subtask continues is downloaded into a temporary directory and verified against
 * the base manifest ({@link RemoteBaseFiles}) when the function opens, and each finished shard is
 * uploaded to the root as {@link ShardWriterFunction} uploads its shards; the temporary directory goes
 * when the function closes.
 */
public final class ContinuingShardWriterFunction extends RichMapPartitionFunction<ShardChange, StageReport> {
  private static final Logger LOG = LoggerFactory.getLogger(ContinuingShardWriterFunction.class);

  private static final long serialVersionUID = 1L;

  private final String snapshotsRoot;
  private final String snapshotId;
  private final String baseId;
  private final RemoteBaseFiles remoteBase;
  private final int shards;
  private final int dimension;
  private final IndexConfig config;
  private final boolean prune;
  private final Map<Integer, List<Manifest.FileEntry>> baseFiles;
  /** Where an incremental build quarantines the losers of duplicate ids, or {@code null}. */
  private final String quarantineDir;
  /**
   * An incremental build's corpus listing ({@code corpus-files.tsv} of the snapshot being built, on a
   * local disk), whose {@code kept} files the source does not read; {@code null}: every file is read.
   */
  private final String corpusListing;
  /** The files of {@link #corpusListing} left unread: their base documents are kept here. */
  private transient Set<String> unread;
  private transient LongCounter unreadRecords;
  private transient LongCounter documents;
  private transient LongCounter withoutPositions;
  private transient LongCounter relocated;
  private transient ContinuedShard.Counters counters;
  private transient StageTimer timer;
  /** Where this subtask writes: the root itself, or a remote root's local working directory. */
  private transient volatile WriterStaging staging;

  /**
   * @param snapshotsRoot a local directory, or a remote root's URI
   * @param baseId the base snapshot under the same root, or {@code null} to start from empty shards
   * @param remoteBase the base's files, on a remote root with a base (else {@code null})
   * @param prune an incremental build: base documents not kept or re-added are removed, and the base's
   *     segments are not merged down
   * @param baseFiles the base manifest's files per shard (empty without a base): files the new shard
   *     still shares with its base keep their verified checksums instead of being hashed again
   * @param corpusListing an incremental build's corpus listing naming the files it leaves unread, or
   *     {@code null}
   */
  public ContinuingShardWriterFunction(String snapshotsRoot, String snapshotId, String baseId,
      RemoteBaseFiles remoteBase, int shards, int dimension, IndexConfig config, boolean prune,
      Map<Integer, List<Manifest.FileEntry>> baseFiles, String quarantineDir, String corpusListing) {
    if (baseId != null && FlinkFileSystems.isRemote(snapshotsRoot)
        && (remoteBase == null || !baseId.equals(remoteBase.baseId()))) {
      throw new IllegalArgumentException("a build continuing a base on remote root " + snapshotsRoot
          + " needs the files of its base " + baseId);
    }
    this.snapshotsRoot = snapshotsRoot;
    this.snapshotId = snapshotId;
    this.baseId = baseId;
    this.remoteBase = remoteBase;
    this.shards = shards;
    this.dimension = dimension;
    this.config = config;
    this.prune = prune;
    this.quarantineDir = quarantineDir;
    if (corpusListing != null && !prune) {
      throw new IllegalArgumentException("only an incremental build leaves corpus files unread");
    }
    this.corpusListing = corpusListing;
    this.baseFiles = new java.util.HashMap<>();
    baseFiles.forEach((k, v) -> this.baseFiles.put(k, new java.util.ArrayList<>(v)));
  }

  @Override
  public void open(OpenContext ctx) throws IOException {
    counters = new ContinuedShard.Counters(getRuntimeContext().getLongCounter(JobCounters.CHUNKS_WRITTEN),
        getRuntimeContext().getLongCounter(JobCounters.INCREMENTAL_KEPT),
        getRuntimeContext().getLongCounter(JobCounters.INCREMENTAL_REMOVED),
        getRuntimeContext().getLongCounter(JobCounters.CHANGELOG_DELETE_UNKNOWN),
        getRuntimeContext().getLongCounter(JobCounters.CHANGELOG_CHUNKS_REMOVED));
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_WRITE);
    unreadRecords = getRuntimeContext().getLongCounter(JobCounters.RECORDS_UNREAD);
    withoutPositions = getRuntimeContext().getLongCounter(JobCounters.SHARDS_WITHOUT_POSITIONS);
    relocated = getRuntimeContext().getLongCounter(JobCounters.INCREMENTAL_RELOCATED);
    documents = getRuntimeContext().getLongCounter(JobCounters.DOCUMENTS);
    unread = Set.of();
    if (corpusListing != null) {
      unread = CorpusFileEnumerator.keptFiles(corpusListing);
    }
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
    staging = WriterStaging.open(snapshotsRoot, snapshotId, "changelog", subtask);
    if (staging.remote() && remoteBase != null) {
      // Here, not in mapPartition: Flink runs mapPartition on a thread of its own and takes anything it
      // throws as fatal for the whole TaskManager; from open, a damaged base fails this task like any
      // other task failure.
      SnapshotLayout layout = staging.layout();
      for (int shard = subtask; shard < shards; shard += parallelism) {
        long start = System.nanoTime();
        remoteBase.fetchShard(shard, layout.shardDir(baseId, shard));
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

  @Override
  public void mapPartition(Iterable<ShardChange> changes, Collector<StageReport> out) throws IOException {
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
    // A retried attempt starts from nothing: what an earlier attempt of this subtask wrote is removed.
    AttemptStaging.clean(snapshotsRoot, snapshotId, null, AttemptStaging.owned(subtask, parallelism, shards));
    // Lucene works on a local disk: a remote root's base shards came down in open and new ones go up.
    SnapshotLayout layout = staging.layout();
    Map<Integer, ContinuedShard> states = new TreeMap<>();
    // An incremental build resolves duplicate ids here (its parse stage sends unchanged records straight
    // on); a changelog build's records were resolved before they came.
    WriterDuplicates duplicates = prune ? WriterDuplicates.forChunks(getRuntimeContext(), quarantineDir) : null;
    try {
      write(changes, layout, states, duplicates, subtask, parallelism);
      boolean first = true;
      ShardFinisher.Positions positions = ShardFinisher.Positions.of(snapshotsRoot, snapshotId, withoutPositions);
      for (Map.Entry<Integer, ContinuedShard> e : states.entrySet()) {
        ShardIndexWriter w = e.getValue().writer();
        long start = System.nanoTime();
        // Merged, probed and described on the local disk, before a remote root gets the upload.
        if (e.getValue().relocated() > 0) {
          LOG.info("shard {}: {} unchanged documents were read from another file than the base records for them"
              + " (moved between files, or kept from a changelog build): copied with their new positions",
              e.getKey(), e.getValue().relocated());
          relocated.add(e.getValue().relocated());
        }
        if (e.getValue().moved() > 0) {
          LOG.warn("shard {}: unchanged documents were read from another file than the base records for them ({})"
              + " (moved between files, or kept from a changelog build) and could not be copied with the new"
              + " positions (a base segment without position fields, or an offset past 2^32 - 2): their positions"
              + " are stale, so the next build reads every corpus file", e.getKey(), e.getValue().moved());
        }
        ShardResult r = ShardFinisher.finish(e.getKey(), w, subtask, config, positions.stale(e.getValue().moved() > 0),
            !prune,
            baseId == null ? null : layout.shardDir(baseId, e.getKey()), baseFiles.getOrDefault(e.getKey(), List.of()));
        if (staging.remote()) {
          r = r.at(staging.publish(w.directory(), SnapshotLayout.shardKey(snapshotId, e.getKey())));
        }
        timer.add(start);
        out.collect(StageReport.shard(r, first
            ? StageReports.of("write-shards", getRuntimeContext(), JobCounters.WRITE_STAGE).counters() : Map.of()));
        first = false;
      }
      StageReport quarantine = duplicates == null ? null : duplicates.report("write-shards", subtask);
      if (quarantine != null) {
        out.collect(quarantine);
      }
    } finally {
      try {
        if (duplicates != null) {
          duplicates.close();
        }
      } finally {
        close();
      }
    }
  }

  /** Applies the changes to the shards this subtask owns and closes them. */
  private void write(Iterable<ShardChange> changes, SnapshotLayout layout, Map<Integer, ContinuedShard> states,
      WriterDuplicates duplicates, int subtask, int parallelism) throws IOException {
    try {
      for (ShardChange change : changes) {
        long start = System.nanoTime();
        String docId = change.docId();
        int shard = ShardRouter.shardOf(docId, shards);
        if (shard % parallelism != subtask) {
          throw new IllegalStateException("change of " + docId + " for shard " + shard + " reached writer "
              + subtask + "/" + parallelism + ": routing is broken");
        }
        ContinuedShard s = states.get(shard);
        if (s == null) {
          s = openShard(layout, shard, duplicates);
          states.put(shard, s);
        }
        switch (change.kind()) {
          case ADD -> {
            if (duplicates == null) {
              s.add(change.chunk());
            } else {
              var c = change.chunk().chunk();
              s.add(change.chunk(), duplicates.decide(docId, c.source(), c.text()));
            }
          }
          case KEEP -> {
            if (duplicates == null) {
              throw new IllegalStateException("an unchanged document reached a changelog build's writer: " + docId);
            }
            long[] key = KeyBits.ofId(docId); // once for both: a rebuild keeps nearly every document
            s.unchanged(docId, key, duplicates.unchanged(docId, key, change.unchangedAt()), change.unchangedAt());
          }
          case REPLACE, DELETE -> s.remove(docId, change.kind() == ShardChange.Kind.DELETE);
        }
        timer.add(start);
      }
      for (int shard = subtask; shard < shards; shard += parallelism) {
        if (!states.containsKey(shard)) {
          states.put(shard, openShard(layout, shard, duplicates));
        }
      }
      for (ContinuedShard s : states.values()) {
        long start = System.nanoTime();
        if (prune) {
          s.finishIncremental();
        }
        s.close();
        timer.add(start);
      }
    } catch (IOException | RuntimeException e) {
      for (ContinuedShard s : states.values()) {
        try {
          s.close();
        } catch (IOException | RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  private ContinuedShard openShard(SnapshotLayout layout, int shard, WriterDuplicates duplicates) throws IOException {
    // On a remote root the base shard was fetched into staging by open.
    Path baseDir = baseId == null ? null : layout.shardDir(baseId, shard);
    ContinuedShard s = ContinuedShard.open(layout.shardDir(snapshotId, shard), baseDir, config, dimension, prune,
        counters);
    if (!unread.isEmpty()) {
      try {
        // The records of the unread files are this shard's documents as much as those the parser saw.
        long n = s.keepUnread(unread, duplicates);
        unreadRecords.add(n);
        documents.add(n);
      } catch (IOException | RuntimeException e) {
        s.close();
        throw e;
      }
    }
    return s;
  }
}
