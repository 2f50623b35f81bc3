package dev.kiln.operators;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.index.store.FetchStats;
import dev.kiln.ingest.CorpusFileEnumerator;
import dev.kiln.model.ParentChange;
import dev.kiln.model.ShardChange;
import dev.kiln.model.ShardResult;
import dev.kiln.operators.fs.BaseFiles;
import dev.kiln.operators.fs.BaseShard;
import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.operators.fs.WriterStaging;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.vectors.KeyBits;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.flink.api.common.accumulators.LongCounter;
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
 * <p>The base's shards reach the writer as its target gives them ({@link SnapshotsTarget#base}): in
 * place under a local root; downloaded into the staging directory and verified against the base
 * manifest when the function opens on a remote root, whose finished shards are then uploaded as
 * {@link ShardWriterFunction} uploads its own.
 */
public final class ContinuingShardWriterFunction extends ShardOwningWriter<ShardChange, ContinuedShard> {
  private static final Logger LOG = LoggerFactory.getLogger(ContinuingShardWriterFunction.class);

  private static final long serialVersionUID = 1L;

  /** The base's files, or {@code null} to start from empty shards. */
  private final BaseFiles base;
  private final int dimension;
  private final IndexConfig config;
  private final boolean prune;
  private final HashMap<Integer, ArrayList<Manifest.FileEntry>> baseFiles = new HashMap<>();
  /** Where an incremental build quarantines the losers of duplicate ids, or {@code null}. */
  private final String quarantineDir;
  /**
   * An incremental build's corpus listing ({@code corpus-files.tsv} of the snapshot being built, on a
   * local disk), whose {@code kept} files the source does not read; {@code null}: every file is read.
   */
  private final String corpusListing;
  /**
   * A parents docstore follows the shards (an incremental build under parent-child chunking): each shard
   * reports what its docstore part must do ({@link ContinuedShard#parentChanges}).
   */
  private boolean parentChanges;
  /** The files of {@link #corpusListing} left unread: their base documents are kept here. */
  private transient Set<String> unread;
  private transient LongCounter unreadRecords;
  private transient LongCounter documents;
  private transient LongCounter withoutPositions;
  private transient LongCounter relocated;
  private transient ContinuedShard.Counters counters;
  private transient WriterDuplicates duplicates;
  /** The owned shards' bases as the target gives them (none without a base). */
  private transient SortedMap<Integer, BaseShard> bases;
  /** What the writer read of a remote base. */
  private transient FetchStats fetched;
  private transient LongCounter baseBytesRead;
  private transient LongCounter uploaded;

  /**
   * @param base the base snapshot's files as the target gives them, or {@code null} to start from
   *     empty shards
   * @param prune an incremental build: base documents not kept or re-added are removed (any build with a
   *     base keeps the base's segments: {@link #keepsSegments})
   * @param baseFiles the base manifest's files per shard (empty without a base): files the new shard
   *     still shares with its base keep their verified checksums instead of being hashed again
   * @param corpusListing an incremental build's corpus listing naming the files it leaves unread, or
   *     {@code null}
   */
  public ContinuingShardWriterFunction(SnapshotsTarget target, String snapshotId, BaseFiles base, int shards,
      int dimension, IndexConfig config, boolean prune, Map<Integer, List<Manifest.FileEntry>> baseFiles,
      String quarantineDir, String corpusListing) {
    super(target, snapshotId, shards, null, "changelog");
    this.base = base;
    this.dimension = dimension;
    this.config = config;
    this.prune = prune;
    this.quarantineDir = quarantineDir;
    if (corpusListing != null && !prune) {
      throw new IllegalArgumentException("only an incremental build leaves corpus files unread");
    }
    this.corpusListing = corpusListing;
    baseFiles.forEach((k, v) -> this.baseFiles.put(k, new ArrayList<>(v)));
  }

  /**
   * Has each shard report, once its input ended, what the parents docstore must do to hold the
   * shard's documents ({@link StageReport#parents}, in batches of {@value #PARENT_BATCH}): an
   * incremental build under parent-child chunking, whose docstore writer follows the shards' decisions.
   * Each shard then holds the ids of the documents whose base chunks it deleted (changed or removed ones,
   * never the kept ones) until its input ends.
   */
  public ContinuingShardWriterFunction withParentChanges() {
    if (!prune) {
      throw new IllegalStateException("only an incremental build's shards report to a docstore writer");
    }
    this.parentChanges = true;
    return this;
  }

  /** Decisions per report: a report is one record, shipped whole. */
  static final int PARENT_BATCH = 10_000;

  @Override
  protected void openCounters() {
    counters = new ContinuedShard.Counters(getRuntimeContext().getLongCounter(JobCounters.CHUNKS_WRITTEN),
        getRuntimeContext().getLongCounter(JobCounters.INCREMENTAL_KEPT),
        getRuntimeContext().getLongCounter(JobCounters.INCREMENTAL_REMOVED),
        getRuntimeContext().getLongCounter(JobCounters.CHANGELOG_DELETE_UNKNOWN),
        getRuntimeContext().getLongCounter(JobCounters.CHANGELOG_CHUNKS_REMOVED));
    unreadRecords = getRuntimeContext().getLongCounter(JobCounters.RECORDS_UNREAD);
    withoutPositions = getRuntimeContext().getLongCounter(JobCounters.SHARDS_WITHOUT_POSITIONS);
    relocated = getRuntimeContext().getLongCounter(JobCounters.INCREMENTAL_RELOCATED);
    documents = getRuntimeContext().getLongCounter(JobCounters.DOCUMENTS);
    baseBytesRead = getRuntimeContext().getLongCounter(JobCounters.BASE_BYTES_READ);
    uploaded = getRuntimeContext().getLongCounter(JobCounters.SHARD_BYTES_UPLOADED);
  }

  @Override
  protected void openBase(SnapshotLayout layout, List<Integer> owned) throws IOException {
    unread = corpusListing == null ? Set.of() : CorpusFileEnumerator.keptFiles(corpusListing);
    bases = new TreeMap<>();
    fetched = new FetchStats();
    if (base != null) {
      for (int shard : owned) {
        long start = System.nanoTime();
        // A remote base is not downloaded: Lucene reads what it needs of it, block by block.
        bases.put(shard, base.shard(shard, layout.shardDir(base.baseId(), shard),
            layout.root().resolve("base-cache").resolve(SnapshotLayout.shardDirName(shard)), fetched));
        timer.add(start);
      }
    }
  }

  @Override
  protected void closeBase() {
    if (bases == null) {
      return;
    }
    closeAll(bases.values(), "base shard");
    bases = null;
  }

  @Override
  protected void beginInput() {
    // An incremental build resolves duplicate ids here (its parse stage sends unchanged records straight
    // on); a changelog build's records were resolved before they came.
    duplicates = prune ? WriterDuplicates.forChunks(getRuntimeContext(), quarantineDir) : null;
  }

  @Override
  protected void endInput() throws IOException {
    if (duplicates != null) {
      duplicates.close();
      duplicates = null;
    }
  }

  @Override
  protected String docId(ShardChange change) {
    return change.docId();
  }

  @Override
  protected String describe(ShardChange change) {
    return change.kind() + " of " + change.docId();
  }

  /**
   * Whether the shards keep their base's segments (Lucene's merge policy merges what it will) instead of
   * being merged down to {@code index.max-segments} as a full build's are. Every build that continues a
   * base does: merging down would rewrite, and on a remote root upload, every byte of the shard each
   * night, however small the change. A changelog build from empty shards merges like a full build.
   */
  private boolean keepsSegments() {
    return prune || base != null;
  }

  @Override
  protected ContinuedShard openPart(SnapshotLayout layout, int shard) throws IOException {
    ContinuedShard s = ContinuedShard.open(layout.shardDir(snapshotId, shard), bases.get(shard), config, dimension,
        keepsSegments(), counters);
    if (parentChanges) {
      s.trackParents();
    }
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

  @Override
  protected void accept(ContinuedShard s, ShardChange change) throws IOException {
    String docId = change.docId();
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
  }

  @Override
  protected void closePart(ContinuedShard s) throws IOException {
    if (prune) {
      s.finishIncremental();
    }
    s.close();
  }

  @Override
  protected void finish(SortedMap<Integer, ContinuedShard> states, WriterStaging staging,
      Collector<StageReport> out) throws IOException {
    ShardFinisher.Positions positions = ShardFinisher.Positions.of(target, snapshotId, withoutPositions);
    // Reported with the first shard: what the writers read of a remote base happened before finishing.
    if (fetched.blocks() > 0) {
      LOG.info("subtask {}: read {} bytes of the remote base in {} blocks", subtask(), fetched.bytes(),
          fetched.blocks());
    }
    baseBytesRead.add(fetched.bytes());
    List<ShardResult> results = new ArrayList<>();
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
      ShardResult r = ShardFinisher.finish(e.getKey(), w, subtask(), config, positions.stale(e.getValue().moved() > 0),
          !keepsSegments(), bases.get(e.getKey()), base == null ? null : base.baseId(),
          baseFiles.getOrDefault(e.getKey(), new ArrayList<>()));
      r = staging.publish(r, w.directory(), SnapshotLayout.shardKey(snapshotId, e.getKey()));
      uploaded.add(staging.uploadedBytes(r));
      timer.add(start);
      results.add(r);
      if (parentChanges) {
        List<ParentChange> changes = e.getValue().parentChanges();
        for (int i = 0; i < changes.size(); i += PARENT_BATCH) {
          out.collect(StageReport.parents("write-shards", subtask(),
              changes.subList(i, Math.min(changes.size(), i + PARENT_BATCH))));
        }
      }
    }
    // One report per shard; this subtask's counters, complete once every shard is published, ride on the
    // first (the committer sums them).
    boolean first = true;
    for (ShardResult r : results) {
      out.collect(StageReport.shard(r, first
          ? StageReports.of("write-shards", getRuntimeContext(), JobCounters.WRITE_STAGE).counters() : Map.of()));
      first = false;
    }
    StageReport quarantine = duplicates == null ? null : duplicates.report("write-shards", subtask());
    if (quarantine != null) {
      out.collect(quarantine);
    }
  }
}
