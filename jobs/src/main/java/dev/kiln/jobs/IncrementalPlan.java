package dev.kiln.jobs;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.VectorEncoding;
import dev.kiln.index.DocFingerprintFile;
import dev.kiln.index.DocFingerprints;
import dev.kiln.operators.BaseDocuments;
import dev.kiln.operators.fs.RemoteBaseFiles;
import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether a corpus build is incremental, decided once in the client before the job starts: over the
 * snapshot {@code CURRENT} named at the start (the one the publish compares against) when everything
 * that shapes its segments matches this build (shard count, model, chunker, analyzer, range fields,
 * HNSW parameters and vector encoding) and every base shard carries document fingerprints (under
 * parent-child chunking, also a docstore part: its parts are continued too). Otherwise the
 * build is a {@link BuildMode.Full full} one whose reason says why, for the log and the counters table.
 * The base is checked as its target checks a base ({@link SnapshotsTarget#continuableBase}). On a
 * remote root the base must carry its shards' fingerprint files ({@link DocFingerprintFile}): the parse
 * subtasks download those, and the writers their shards, each file verified against the base manifest.
 */
final class IncrementalPlan {
  private IncrementalPlan() {}

  /** @param base what {@code CURRENT} named when the build started (the publish's compare-and-set base) */
  static BuildMode plan(BuildContext ctx, SnapshotStore store, String base) {
    BuildConfig config = ctx.config();
    if ("off".equals(config.incremental)) {
      return new BuildMode.Full("off (incremental: off)");
    }
    if (base == null) {
      return new BuildMode.Full("no published snapshot to continue");
    }
    SnapshotsTarget target = ctx.target();
    Manifest m;
    try {
      m = target.continuableBase(store, base, false);
    } catch (RuntimeException e) {
      return new BuildMode.Full("CURRENT " + base + " cannot be continued: " + e.getMessage());
    }
    String mismatch = mismatch(ctx, m);
    if (mismatch != null) {
      return new BuildMode.Full("this build has " + mismatch + " than CURRENT " + base);
    }
    // Parent-child chunking: the docstore is continued like the shards (its parts follow their decisions),
    // so the base must have one for every shard.
    if (config.chunker.parents.enabled && !hasDocstore(m)) {
      return new BuildMode.Full("CURRENT " + base + " has no parents docstore for every shard to continue");
    }
    // The parse subtasks compare each record with the base's document fingerprints: a remote base's are
    // downloaded shard by shard from their files, a local base's read in place from its shards.
    if (target.base(m) instanceof RemoteBaseFiles files) {
      if (!files.everyShardHas(DocFingerprintFile.NAME)) {
        return new BuildMode.Full("CURRENT " + base + " on the remote root has shards without their document"
            + " fingerprint files (written before they existed; the next full build writes them)");
      }
      return new BuildMode.Incremental(base, m, BaseDocuments.remote(files, config.shards, ctx.documentSettings()),
          "over CURRENT " + base + " (" + m.totalChunks() + " chunks), on the remote root", null);
    }
    List<String> dirs = new ArrayList<>();
    for (int shard = 0; shard < config.shards; shard++) {
      Path dir = store.layout().shardDir(base, shard);
      try {
        if (!DocFingerprints.present(dir)) {
          return new BuildMode.Full("CURRENT " + base + " was built before document fingerprints existed");
        }
      } catch (IOException e) {
        return new BuildMode.Full("CURRENT " + base + " shard " + shard + " cannot be read: " + e.getMessage());
      }
      dirs.add(dir.toAbsolutePath().toString());
    }
    return new BuildMode.Incremental(base, m, new BaseDocuments(base, dirs, ctx.documentSettings()),
        "over CURRENT " + base + " (" + m.totalChunks() + " chunks)", null);
  }

  /** Whether the base lists a docstore part for each of its shards. */
  private static boolean hasDocstore(Manifest m) {
    if (m.docstore() == null || m.docstore().files() == null) {
      return false;
    }
    for (int shard = 0; shard < m.shards().size(); shard++) {
      String prefix = SnapshotLayout.shardDirName(shard) + "/";
      if (m.docstore().files().stream().noneMatch(f -> f.name().startsWith(prefix))) {
        return false;
      }
    }
    return true;
  }

  /** What differs from the base in a way its segments cannot absorb, or {@code null}. */
  private static String mismatch(BuildContext ctx, Manifest m) {
    BuildConfig config = ctx.config();
    if (m.shards() == null || m.shards().size() != config.shards) {
      return "another shard count (" + config.shards + ")";
    }
    if (m.model() == null || !ctx.modelFingerprint().equals(m.model().fingerprint())) {
      return "another model (" + config.embed.model + ")";
    }
    if (m.chunker() == null || !ctx.chunkerFingerprint().equals(m.chunker().fingerprint())) {
      return "other chunker settings";
    }
    Manifest.IndexInfo index = m.index();
    if (index == null || !config.index.analyzer.equals(index.analyzer())) {
      return "another analyzer (" + config.index.analyzer + ")";
    }
    if (index.hnswM() != config.index.hnswM || index.hnswBeamWidth() != config.index.hnswBeamWidth) {
      return "other HNSW parameters";
    }
    String encoding = index.vectorEncoding() == null ? VectorEncoding.FLOAT32.label() : index.vectorEncoding();
    if (!VectorEncoding.parse(config.index.vectorEncoding).label().equals(encoding)) {
      return "another vector encoding (" + config.index.vectorEncoding + ")";
    }
    if (!config.index.rangeTypes().equals(m.rangeTypes())) {
      return "other range fields";
    }
    return null;
  }
}
