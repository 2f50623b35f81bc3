package dev.kiln.operators;

import dev.kiln.index.ParentStoreWriter;
import dev.kiln.index.store.FetchStats;
import dev.kiln.model.ParentChange;
import dev.kiln.model.ParentChunk;
import dev.kiln.operators.fs.BaseFiles;
import dev.kiln.operators.fs.BaseShard;
import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.operators.fs.WriterStaging;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
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
 * Parents docstore write stage of a build that continues a base (a changelog build, or an incremental
 * corpus build), the docstore's counterpart of {@link ContinuingShardWriterFunction}: each part
 * continues the base's part ({@link ParentStoreWriter#continuing}: hard links under a local root;
 * {@link ParentStoreWriter#continuingOver}: read on demand under a remote one), loses the parents of removed documents (an upsert's when its
 * first fresh parent arrives) and gains the fresh parents. The finished part lists the base files it
 * still shares as references to their owner, so a remote root is sent only the files this build wrote.
 * Emits the live parents of its parts, also summed in {@link JobCounters#CHANGELOG_PARENTS}.
 *
 * <p>An incremental build's docstore follows its chunk shards rather than deciding on its own which
 * documents are live: its input is the fresh parents and each shard's decisions ({@link
 * ContinuedShard#parentChanges}, reported by the shard writers once their input ended) — a base
 * document whose chunks went loses its parents, one whose base chunks won over a fresh record keeps
 * them and loses that record's parents ({@link ParentStoreWriter#restoreBase} where they were already
 * replaced) — and it resolves duplicate ids among fresh records by the chunk writers' rule ({@link
 * WriterDuplicates}), which picks the same winner. Everything else, kept unchanged or left unread, stays
 * as the base has it. So the parts agree with the shards about every document in any arrival order.
 */
public final class ContinuingParentWriterFunction
    extends ShardOwningWriter<ParentChange, ContinuingParentWriterFunction.Part> {
  private static final Logger LOG = LoggerFactory.getLogger(ContinuingParentWriterFunction.class);
  private static final long serialVersionUID = 3L;

  /** The base's files, or {@code null} to start from empty parts. */
  private final BaseFiles base;
  /** The base manifest's docstore files per part, named relative to the part (none without a base). */
  private final HashMap<Integer, ArrayList<Manifest.FileEntry>> baseFiles = new HashMap<>();
  /** An incremental build: duplicate ids resolved here, and the shards' decisions followed. */
  private final boolean incremental;
  private transient WriterDuplicates duplicates;
  private transient LongCounter written;
  private transient LongCounter total;
  private transient LongCounter baseBytesRead;
  private transient LongCounter uploaded;
  /** The owned parts' bases as the target gives them (none without a base). */
  private transient SortedMap<Integer, BaseShard> bases;
  private transient FetchStats fetched;

  /**
   * As {@link ContinuingShardWriterFunction#ContinuingShardWriterFunction}'s arguments of the same names;
   * {@code baseFiles}: the base manifest's docstore files by part ({@link #partFiles}).
   */
  public ContinuingParentWriterFunction(SnapshotsTarget target, String snapshotId, BaseFiles base, int shards,
      Map<Integer, List<Manifest.FileEntry>> baseFiles, boolean incremental) {
    super(target, snapshotId, shards, SnapshotLayout.PARENTS, incremental ? "continued-parents" : "changelog-parents");
    this.base = base;
    this.incremental = incremental;
    baseFiles.forEach((k, v) -> this.baseFiles.put(k, new ArrayList<>(v)));
  }

  /** A manifest's docstore files by part, each named relative to its part directory (none: empty). */
  public static Map<Integer, List<Manifest.FileEntry>> partFiles(Manifest m) {
    Map<Integer, List<Manifest.FileEntry>> out = new HashMap<>();
    if (m == null || m.docstore() == null) {
      return out;
    }
    for (int shard = 0; shard < m.shards().size(); shard++) {
      String prefix = SnapshotLayout.shardDirName(shard) + "/";
      List<Manifest.FileEntry> files = new ArrayList<>();
      for (Manifest.FileEntry f : m.docstore().files()) {
        if (f.name().startsWith(prefix)) {
          files.add(f.renamed(f.name().substring(prefix.length())));
        }
      }
      out.put(shard, files);
    }
    return out;
  }

  @Override
  protected void openCounters() {
    written = getRuntimeContext().getLongCounter(JobCounters.PARENTS_WRITTEN);
    total = getRuntimeContext().getLongCounter(JobCounters.CHANGELOG_PARENTS);
    baseBytesRead = getRuntimeContext().getLongCounter(JobCounters.PARENTS_BASE_BYTES_READ);
    uploaded = getRuntimeContext().getLongCounter(JobCounters.PARENTS_BYTES_UPLOADED);
  }

  @Override
  protected void beginInput() {
    // Counts PARENTS and PARENTS_WRITTEN as a full build's docstore writer does: the committer compares them.
    duplicates = incremental ? WriterDuplicates.forParents(getRuntimeContext()) : null;
  }

  @Override
  protected void endInput() throws IOException {
    if (duplicates != null) {
      duplicates.close();
      duplicates = null;
    }
  }

  @Override
  protected void openBase(SnapshotLayout layout, List<Integer> owned) throws IOException {
    bases = new TreeMap<>();
    fetched = new FetchStats();
    if (base != null) {
      for (int shard : owned) {
        long start = System.nanoTime();
        // A remote base part is not downloaded: Lucene reads what it needs of it, block by block.
        bases.put(shard, base.parents(shard, layout.parentsDir(base.baseId(), shard),
            layout.root().resolve("parents-base-cache").resolve(SnapshotLayout.shardDirName(shard)), fetched));
        timer.add(start);
      }
    }
  }

  @Override
  protected void closeBase() {
    if (bases == null) {
      return;
    }
    closeAll(bases.values(), "base docstore part");
    bases = null;
  }

  /** One docstore part: the base's parents, less the removed documents', plus the fresh ones. */
  static final class Part {
    final int shard;
    final ParentStoreWriter writer;
    final Set<String> fresh = new HashSet<>();
    final Set<String> removed = new HashSet<>();
    /** An incremental build's: live fresh parents per document, taken off the counts if the base wins. */
    final Map<String, Integer> freshParents = new HashMap<>();
    /** An incremental build's: documents whose base parents stay and fresh ones go. */
    final Set<String> baseWins = new HashSet<>();
    /** An incremental build's: documents whose base parents were put back ({@link ParentStoreWriter#restoreBase}). */
    long restored;

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
    var dir = layout.parentsDir(snapshotId, shard);
    ParentStoreWriter writer = switch (bases.get(shard)) {
      case null -> new ParentStoreWriter(dir);
      case BaseShard.Local local -> ParentStoreWriter.continuing(dir, local.directory());
      case BaseShard.Remote remote -> ParentStoreWriter.continuingOver(dir, remote.files());
    };
    return new Part(shard, writer);
  }

  @Override
  protected void accept(Part part, ParentChange change) throws IOException {
    if (incremental) {
      acceptIncremental(part, change);
      return;
    }
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

  private void acceptIncremental(Part part, ParentChange change) throws IOException {
    String docId = change.docId();
    ParentChunk p = change.parent();
    if (p != null) {
      if (part.baseWins.contains(docId)) {
        duplicates.skipped(1);
        return;
      }
      switch (duplicates.offer(docId, p.source(), p.text())) {
        case DROP -> {
          return;
        }
        case WRITE -> {
          if (part.fresh.add(docId)) {
            part.remove(docId);
          }
          part.freshParents.merge(docId, 1, Integer::sum);
        }
        case REPLACE -> {
          // An earlier record's parents won so far (the base's went with them): they go too.
          part.writer.deleteDocument(docId);
          part.removed.add(docId);
          part.fresh.add(docId);
          part.freshParents.put(docId, 1);
        }
      }
      part.writer.add(p);
    } else if (change.baseWins()) {
      if (part.baseWins.add(docId)) {
        Integer n = part.freshParents.remove(docId);
        part.fresh.remove(docId);
        if (n != null || part.removed.contains(docId)) {
          long back = part.writer.restoreBase(docId);
          part.restored++;
          LOG.debug("part {}: {} kept its base chunks over a fresh duplicate: its {} base parents restored",
              part.shard, docId, back);
          duplicates.skipped(n == null ? 0 : n, true);
        }
      }
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
    if (fetched.blocks() > 0) {
      LOG.info("subtask {}: read {} bytes of the remote base docstore in {} blocks", subtask(), fetched.bytes(),
          fetched.blocks());
    }
    baseBytesRead.add(fetched.bytes());
    long live = 0;
    List<Manifest.FileEntry> files = new ArrayList<>();
    for (Part part : parts.values()) {
      if (part.restored > 0) {
        LOG.info("part {}: {} documents kept their base chunks over a fresh duplicate: their base parents restored",
            part.shard, part.restored);
      }
      live += part.writer.parents();
      long start = System.nanoTime();
      List<Manifest.FileEntry> own = ParentParts.describe(layout.parentsDir(snapshotId, part.shard),
          bases.get(part.shard), part.writer.sharedBaseFiles(), base == null ? null : base.baseId(),
          baseFiles.getOrDefault(part.shard, new ArrayList<>()));
      staging.publish(own, layout.parentsDir(snapshotId, part.shard),
          SnapshotLayout.parentsKey(snapshotId, part.shard));
      uploaded.add(staging.uploadedBytes(own));
      String prefix = SnapshotLayout.shardDirName(part.shard) + "/";
      own.forEach(f -> files.add(f.renamed(prefix + f.name())));
      timer.add(start);
    }
    total.add(live);
    out.collect(ParentParts.report("write-parents", getRuntimeContext(), files));
  }
}
