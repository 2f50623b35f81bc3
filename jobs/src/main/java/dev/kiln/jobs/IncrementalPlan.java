package dev.kiln.jobs;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.VectorEncoding;
import dev.kiln.index.DocFingerprintFile;
import dev.kiln.index.DocFingerprints;
import dev.kiln.operators.BaseDocuments;
import dev.kiln.operators.fs.RemoteBaseFiles;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether a corpus build is incremental, decided once in the client before the job starts: over the
 * snapshot {@code CURRENT} named at the start (the one the publish compares against) when everything that shapes its segments matches this build (shard
 * count, model, chunker, analyzer, range fields, HNSW parameters and vector encoding) and every base
 * shard carries document fingerprints. Otherwise the build is a full one, and {@link #reason} says
 * why, for the log and the counters table. The base is trusted as its {@code VERIFIED} record says
 * (sizes and file set checked; hashed only without one), as a searcher trusts it. On a remote root
 * the base must carry its shards' fingerprint files ({@link DocFingerprintFile}): the parse subtasks
 * download those, and the writers their shards, each file verified against the base manifest.
 *
 * @param base the base snapshot, or {@code null} for a full build
 * @param documents what the parse stage compares documents against, or {@code null}
 * @param unreadListing the build's own {@code corpus-files.tsv} (a URI under the root) when it leaves files
 *     unchanged since the base unread ({@link CorpusListing}), else {@code null}
 */
record IncrementalPlan(String base, Manifest baseManifest, BaseDocuments documents, String reason,
    String unreadListing) {

  static IncrementalPlan full(String reason) {
    return new IncrementalPlan(null, null, null, reason, null);
  }

  /** This plan, leaving unread the kept files of the listing at {@code listing}. */
  IncrementalPlan withUnreadListing(String listing) {
    return new IncrementalPlan(base, baseManifest, documents, reason, listing);
  }

  boolean incremental() {
    return base != null;
  }

  /** @param base what {@code CURRENT} named when the build started (the publish's compare-and-set base) */
  static IncrementalPlan plan(BuildConfig config, SnapshotStore store, BuildJob job, String base) {
    if ("off".equals(config.incremental)) {
      return full("off (incremental: off)");
    }
    if (config.chunker.parents.enabled) {
      return full("parent-child chunking: the parent docstore is not continued by incremental builds yet");
    }
    if (base == null) {
      return full("no published snapshot to continue");
    }
    Manifest m;
    try {
      // A remote base is checked as a changelog build checks it: its manifest, and every file present
      // with its size; the parse subtasks and the writers hash what they download of it.
      m = job.remote() ? ChangelogPlan.remoteBase(store, base) : store.openForServing(base).manifest();
    } catch (RuntimeException e) {
      return full("CURRENT " + base + " cannot be continued: " + e.getMessage());
    }
    String mismatch = mismatch(config, job, m);
    if (mismatch != null) {
      return full("this build has " + mismatch + " than CURRENT " + base);
    }
    if (job.remote()) {
      RemoteBaseFiles files = RemoteBaseFiles.of(job.target().root(), m);
      if (!files.everyShardHas(DocFingerprintFile.NAME)) {
        return full("CURRENT " + base + " on the remote root has shards without their document fingerprint files"
            + " (written before they existed; the next full build writes them)");
      }
      return new IncrementalPlan(base, m, BaseDocuments.remote(files, config.shards, job.documentSettings()),
          "over CURRENT " + base + " (" + m.totalChunks() + " chunks), on the remote root", null);
    }
    List<String> dirs = new ArrayList<>();
    for (int shard = 0; shard < config.shards; shard++) {
      Path dir = store.layout().shardDir(base, shard);
      try {
        if (!DocFingerprints.present(dir)) {
          return full("CURRENT " + base + " was built before document fingerprints existed");
        }
      } catch (IOException e) {
        return full("CURRENT " + base + " shard " + shard + " cannot be read: " + e.getMessage());
      }
      dirs.add(dir.toAbsolutePath().toString());
    }
    return new IncrementalPlan(base, m, new BaseDocuments(base, dirs, job.documentSettings()),
        "over CURRENT " + base + " (" + m.totalChunks() + " chunks)", null);
  }

  /** What differs from the base in a way its segments cannot absorb, or {@code null}. */
  private static String mismatch(BuildConfig config, BuildJob job, Manifest m) {
    if (m.shards() == null || m.shards().size() != config.shards) {
      return "another shard count (" + config.shards + ")";
    }
    if (m.model() == null || !job.modelFingerprint().equals(m.model().fingerprint())) {
      return "another model (" + config.embed.model + ")";
    }
    String chunker = config.chunker.fingerprint(job.model().source());
    if (m.chunker() == null || !chunker.equals(m.chunker().fingerprint())) {
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
