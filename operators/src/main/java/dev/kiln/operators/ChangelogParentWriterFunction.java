package dev.kiln.operators;

import dev.kiln.index.ParentStoreWriter;
import dev.kiln.index.store.FetchStats;
import dev.kiln.model.ParentChange;
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
 * Parents docstore write stage of a changelog build, the docstore's counterpart of
 * {@link ContinuingShardWriterFunction}: each part continues the base's part ({@link
 * ParentStoreWriter#continuing}: hard links under a local root; {@link ParentStoreWriter#continuingOver}:
 * read on demand under a remote one), loses the parents of removed documents (an upsert's when its
 * first fresh parent arrives) and gains the fresh parents. The finished part lists the base files it
 * still shares as references to their owner, so a remote root is sent only the files this build wrote.
 * Emits the live parents of its parts, also summed in {@link JobCounters#CHANGELOG_PARENTS}.
 */
public final class ChangelogParentWriterFunction
    extends ShardOwningWriter<ParentChange, ChangelogParentWriterFunction.Part> {
  private static final Logger LOG = LoggerFactory.getLogger(ChangelogParentWriterFunction.class);
  private static final long serialVersionUID = 2L;

  /** The base's files, or {@code null} to start from empty parts. */
  private final BaseFiles base;
  /** The base manifest's docstore files per part, named relative to the part (none without a base). */
  private final HashMap<Integer, ArrayList<Manifest.FileEntry>> baseFiles = new HashMap<>();
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
  public ChangelogParentWriterFunction(SnapshotsTarget target, String snapshotId, BaseFiles base, int shards,
      Map<Integer, List<Manifest.FileEntry>> baseFiles) {
    super(target, snapshotId, shards, SnapshotLayout.PARENTS, "changelog-parents");
    this.base = base;
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
    if (fetched.blocks() > 0) {
      LOG.info("subtask {}: read {} bytes of the remote base docstore in {} blocks", subtask(), fetched.bytes(),
          fetched.blocks());
    }
    baseBytesRead.add(fetched.bytes());
    long live = 0;
    List<Manifest.FileEntry> files = new ArrayList<>();
    for (Part part : parts.values()) {
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
