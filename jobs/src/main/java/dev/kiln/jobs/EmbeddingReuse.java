package dev.kiln.jobs;

import dev.kiln.config.ConfigException;
import dev.kiln.config.EmbedConfig;
import dev.kiln.operators.JobCounters;
import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.vectors.ReusePart;
import dev.kiln.vectors.ReuseSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, in the client before the job starts, which stored vectors a build may reuse: those of
 * {@code --reuse-from ID}, else of the snapshot {@code CURRENT} names, else none ({@code --no-reuse},
 * nothing published, a snapshot without stored vectors, or another model fingerprint). Here each
 * chosen file is checked to be there with its manifest's size; its SHA-256 goes with it to the embed
 * subtasks, and the one that reads a part checks its bytes first ({@code ReusedVectors}): reuse never
 * trusts unchecked bytes, yet no client hashes every stored vector of a large snapshot, and a subtask
 * reads only the parts of its own key partition. A
 * {@code CURRENT} that stores only part of its chunks' vectors (an incremental or changelog build)
 * adds the stored vectors of the snapshots before it, back to a full build ({@link #addEarlier}), so
 * that a full build after a run of incremental ones re-embeds only what changed since.
 * Everything is read through the store's storage, so a remote root works like a local one; its part
 * files are handed to the embed subtasks as remote URIs, never as paths on the client's disk.
 */
final class EmbeddingReuse {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddingReuse.class);

  /** The decision and why, for the log and the counters table. */
  record Plan(ReuseSource source, String reason) {}

  private EmbeddingReuse() {}

  /**
   * @param target the snapshots root, where the embed subtasks open the parts chosen
   * @param store the target's store
   */
  static Plan plan(EmbedConfig config, SnapshotsTarget target, SnapshotStore store, String fingerprint, int dimension) {
    if (!config.reuse) {
      return none("reuse switched off (--no-reuse)");
    }
    Plan published = published(config, target, store, fingerprint, dimension);
    return ResumedParts.add(published, target, store);
  }

  private static Plan published(EmbedConfig config, SnapshotsTarget target, SnapshotStore store, String fingerprint,
      int dimension) {
    String id;
    boolean explicit = config.reuseFrom != null && !config.reuseFrom.isEmpty();
    if (explicit) {
      id = config.reuseFrom;
      if (!store.hasManifest(id)) {
        throw new ConfigException("--reuse-from " + id + ": no such snapshot under "
            + target.root() + " (snapshots: " + store.list() + ")");
      }
    } else {
      id = store.current().orElse(null);
      if (id == null) {
        return none("no published snapshot to reuse vectors from");
      }
    }
    Manifest m = store.manifest(id);
    Manifest.EmbeddingsInfo e = m.embeddings();
    // A partial snapshot that embedded nothing (an incremental build of an unchanged corpus) stores no
    // vectors of its own, but the snapshots before it may; one that lists its base's vectors by
    // reference (format 2, "complete") needs no walk.
    boolean chain = !explicit && partial(m) && (e == null || !e.complete());
    if (e == null || (e.files().isEmpty() && !chain)) {
      return none("snapshot " + id + " stores no vectors");
    }
    if (!fingerprint.equals(e.modelFingerprint()) || e.dimension() != dimension) {
      return none("snapshot " + id + " was embedded with another model (" + m.model().name() + ", "
          + e.modelFingerprint() + "): every chunk is embedded");
    }
    List<String> problems = new ArrayList<>();
    store.checkFileSizes(id, e.directory(), e.files(), problems);
    if (!problems.isEmpty()) {
      String msg = "stored vectors of snapshot " + id + " fail verification: " + String.join("; ", problems);
      if (explicit) {
        throw new SnapshotException(msg);
      }
      LOG.warn("{}; reusing nothing", msg);
      return none(msg);
    }
    List<ReusePart> files = new ArrayList<>(partPaths(target, store, id, e));
    String reason = "vectors of snapshot " + id + " (" + files.size() + " part file(s))";
    if (chain) {
      List<String> earlier = new ArrayList<>();
      int before = files.size();
      addEarlier(target, store, m, fingerprint, dimension, files, earlier);
      if (!earlier.isEmpty()) {
        reason += " and of the snapshots before it, " + String.join(", ", earlier) + " (" + (files.size() - before)
            + " part file(s)): " + id + " stores only the vectors it embedded";
      }
    }
    if (files.isEmpty()) {
      return none("snapshot " + id + " and the snapshots before it store no vectors");
    }
    return new Plan(new ReuseSource(id, files), reason);
  }

  /**
   * Whether a snapshot's stored vectors are only part of its chunks': an incremental build (it kept
   * base chunks, whose vectors it never saw) or a changelog build (it embedded the changes only).
   */
  static boolean partial(Manifest m) {
    return m.changelog() != null
        || (m.counters() != null && m.counters().getOrDefault(JobCounters.INCREMENTAL_KEPT, 0L) > 0);
  }

  /** The longest way back from a partial {@code CURRENT}: this many published snapshots at most. */
  static final int MAX_EARLIER = 64;

  /**
   * Adds the stored vectors (present, of their recorded sizes) of the published snapshots older than
   * {@code current}, newest first, until one that stores every chunk's vector (a full build): the vectors an incremental
   * build's kept chunks were embedded into live there. Any stored vector of the same model is valid
   * for its content key, so a snapshot off the base's line (one rolled back from) costs memory, not
   * correctness; one of another model, or whose parts fail verification, is passed over.
   */
  private static void addEarlier(SnapshotsTarget target, SnapshotStore store, Manifest current, String fingerprint,
      int dimension, List<ReusePart> files, List<String> used) {
    List<String> older = store.list().stream().filter(id -> id.compareTo(current.id()) < 0)
        .sorted(Comparator.reverseOrder()).limit(MAX_EARLIER).toList();
    for (String id : older) {
      Manifest m;
      try {
        m = store.manifest(id);
      } catch (RuntimeException ex) {
        LOG.warn("reuse: passing over snapshot {}: {}", id, ex.getMessage());
        continue;
      }
      Manifest.EmbeddingsInfo e = m.embeddings();
      if (e == null || !fingerprint.equals(e.modelFingerprint()) || e.dimension() != dimension) {
        continue;
      }
      List<String> problems = new ArrayList<>();
      store.checkFileSizes(id, e.directory(), e.files(), problems);
      if (!problems.isEmpty()) {
        LOG.warn("reuse: passing over the stored vectors of snapshot {}: {}", id, String.join("; ", problems));
        continue;
      }
      if (!e.files().isEmpty()) {
        files.addAll(partPaths(target, store, id, e));
        used.add(id);
      }
      if (!partial(m)) {
        return;
      }
    }
  }

  /**
   * A snapshot's stored-vector parts, own and referenced, where the embed subtasks open them ({@link SnapshotsTarget#dir}), each
   * with the SHA-256 its manifest records.
   */
  private static List<ReusePart> partPaths(SnapshotsTarget target, SnapshotStore store, String id,
      Manifest.EmbeddingsInfo e) {
    // Where the storage keeps what snapshot id reads: the owner's key on an object store, the
    // snapshot's own link on a local root (the owner's directory may be gone).
    return e.files().stream()
        .map(f -> new ReusePart(target.dir(store.storage().fileKey(id, e.directory(), f)), f.sha256()))
        .toList();
  }

  private static Plan none(String reason) {
    return new Plan(ReuseSource.NONE, reason);
  }
}
