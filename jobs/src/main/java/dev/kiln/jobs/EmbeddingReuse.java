package dev.kiln.jobs;

import dev.kiln.config.ConfigException;
import dev.kiln.config.EmbedConfig;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.vectors.ReuseSource;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, in the client before the job starts, which stored vectors a build may reuse: those of
 * {@code --reuse-from ID}, else of the snapshot {@code CURRENT} names, else none ({@code --no-reuse},
 * nothing published, a snapshot without stored vectors, or another model fingerprint). The chosen
 * files are verified against their manifest's SHA-256 first: reuse never trusts unchecked bytes.
 * Everything is read through the store's storage, so a remote root works like a local one; its part
 * files are handed to the embed subtasks as remote URIs, never as paths on the client's disk.
 */
final class EmbeddingReuse {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddingReuse.class);

  /** The decision and why, for the log and the counters table. */
  record Plan(ReuseSource source, String reason) {}

  private EmbeddingReuse() {}

  static Plan plan(EmbedConfig config, SnapshotStore store, String fingerprint, int dimension) {
    return plan(config, store, fingerprint, dimension, null);
  }

  /**
   * @param remoteRoot the remote snapshots root {@code store} reads, or {@code null} for a local one
   */
  static Plan plan(EmbedConfig config, SnapshotStore store, String fingerprint, int dimension, String remoteRoot) {
    if (!config.reuse) {
      return none("reuse switched off (--no-reuse)");
    }
    Plan published = published(config, store, fingerprint, dimension, remoteRoot);
    return ResumedParts.add(published, store, remoteRoot);
  }

  private static Plan published(EmbedConfig config, SnapshotStore store, String fingerprint, int dimension,
      String remoteRoot) {
    String id;
    boolean explicit = config.reuseFrom != null && !config.reuseFrom.isEmpty();
    if (explicit) {
      id = config.reuseFrom;
      if (!store.hasManifest(id)) {
        throw new ConfigException("--reuse-from " + id + ": no such snapshot under "
            + (remoteRoot != null ? remoteRoot : store.layout().root()) + " (snapshots: " + store.list() + ")");
      }
    } else {
      id = store.current().orElse(null);
      if (id == null) {
        return none("no published snapshot to reuse vectors from");
      }
    }
    Manifest m = store.manifest(id);
    Manifest.EmbeddingsInfo e = m.embeddings();
    if (e == null || e.files().isEmpty()) {
      return none("snapshot " + id + " stores no vectors");
    }
    if (!fingerprint.equals(e.modelFingerprint()) || e.dimension() != dimension) {
      return none("snapshot " + id + " was embedded with another model (" + m.model().name() + ", "
          + e.modelFingerprint() + "): every chunk is embedded");
    }
    List<String> problems = new ArrayList<>();
    store.verifyFiles(id, e.directory(), e.files(), problems);
    if (!problems.isEmpty()) {
      String msg = "stored vectors of snapshot " + id + " fail verification: " + String.join("; ", problems);
      if (explicit) {
        throw new SnapshotException(msg);
      }
      LOG.warn("{}; reusing nothing", msg);
      return none(msg);
    }
    List<String> files = e.files().stream()
        .map(f -> remoteRoot != null
            ? new org.apache.flink.core.fs.Path(remoteRoot, SnapshotLayout.snapshotKey(id) + e.directory() + "/" + f.name())
                .toString()
            : store.layout().snapshotDir(id).resolve(e.directory()).resolve(f.name()).toString())
        .toList();
    return new Plan(new ReuseSource(id, files), "vectors of snapshot " + id + " (" + files.size() + " part file(s))");
  }

  private static Plan none(String reason) {
    return new Plan(ReuseSource.NONE, reason);
  }
}
