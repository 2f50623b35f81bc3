package dev.kiln.jobs;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stored vectors a partial build (incremental or changelog) lists by reference (format 2). Such a
 * build embeds only what changed, so its own parts hold only those vectors; the vectors of the chunks
 * it kept live in its base's parts. Listing those in its own manifest, with their owner, makes every
 * snapshot a complete source of vectors for the next build: garbage collection keeps whatever a
 * retained snapshot references, so removing the full build of a week ago no longer makes the next full
 * build embed the whole corpus again; and the next build reads one manifest instead of walking back
 * through earlier ones ({@link EmbeddingReuse}).
 *
 * <p>The client decides what to inherit ({@link #plan}) before the job starts; the job's committer
 * checks each file is still there and, on a local root, links it into the snapshot ({@link #attach}).
 */
final class InheritedVectors {
  private static final Logger LOG = LoggerFactory.getLogger(InheritedVectors.class);

  /** One file to inherit: as snapshot {@code from}'s manifest lists it (its owner may be older still). */
  record File(String from, Manifest.FileEntry entry) implements Serializable {}

  /**
   * @param complete whether the files hold a vector for every chunk the build keeps: its base's were
   *     complete, or a walk back reached a full build
   */
  /**
   * @param base the snapshot the build continues, which gc keeps while the build runs: its files need
   *     no check at commit (the publish verification sizes every listed file anyway)
   */
  record Plan(List<File> files, boolean complete, String base) implements Serializable {
    static final Plan NONE = new Plan(List.of(), false, null);

    Plan {
      files = List.copyOf(files);
    }
  }

  /** The files and whether they are all there, as the committer lists them in the manifest. */
  record Attached(List<Manifest.FileEntry> references, boolean complete) {}

  private InheritedVectors() {}

  /** What a build of {@code mode} inherits: nothing for a full build, else {@link #plan(SnapshotStore, Manifest, String, int)}. */
  static Plan plan(SnapshotStore store, BuildMode mode, String fingerprint, int dimension) {
    Manifest base = switch (mode) {
      case BuildMode.Full full -> null;
      case BuildMode.Incremental incremental -> incremental.baseManifest();
      case BuildMode.Changelog(ChangelogPlan changelog) -> changelog.baseManifest();
    };
    return base == null ? Plan.NONE : plan(store, base, fingerprint, dimension);
  }

  /**
   * What a partial build over {@code base} inherits: the base's stored vectors (own and referenced)
   * when they were made by the same model; when the base is a partial snapshot written before
   * references existed, also those of the snapshots before it, back to a full build, as
   * {@link EmbeddingReuse} reads them. Two earlier files of one name (possible only among untagged
   * parts of such older snapshots) cannot both be linked into one directory: the older is left out and
   * the list is then incomplete.
   */
  static Plan plan(SnapshotStore store, Manifest base, String fingerprint, int dimension) {
    if (!sameModel(base, fingerprint, dimension)) {
      return Plan.NONE;
    }
    List<File> files = new ArrayList<>();
    Set<String> names = new HashSet<>();
    boolean complete = add(base, files, names);
    if (complete) {
      return new Plan(files, true, base.id());
    }
    List<String> older = store.list().stream().filter(id -> id.compareTo(base.id()) < 0)
        .sorted(Comparator.reverseOrder()).limit(EmbeddingReuse.MAX_EARLIER).toList();
    boolean whole = true;
    for (String id : older) {
      Manifest m;
      try {
        m = store.manifest(id);
      } catch (RuntimeException ex) {
        LOG.warn("inherited vectors: passing over snapshot {}: {}", id, ex.getMessage());
        continue;
      }
      if (!sameModel(m, fingerprint, dimension)) {
        continue;
      }
      int before = files.size();
      boolean reachedFull = add(m, files, names);
      whole &= files.size() - before == m.embeddings().files().size();
      if (reachedFull) {
        return new Plan(files, whole, base.id());
      }
    }
    return new Plan(files, false, base.id());
  }

  /** Adds {@code m}'s files not named like one already taken; whether {@code m}'s list is complete. */
  private static boolean add(Manifest m, List<File> files, Set<String> names) {
    for (Manifest.FileEntry f : m.embeddings().files()) {
      if (names.add(f.name())) {
        files.add(new File(m.id(), f));
      }
    }
    return !EmbeddingReuse.partial(m) || m.embeddings().complete();
  }

  private static boolean sameModel(Manifest m, String fingerprint, int dimension) {
    Manifest.EmbeddingsInfo e = m == null ? null : m.embeddings();
    return e != null && e.files() != null && fingerprint.equals(e.modelFingerprint()) && e.dimension() == dimension;
  }

  /**
   * Makes snapshot {@code id} list the planned files: each still present with its size is referenced
   * with its owner and, on a storage that keeps links ({@link SnapshotStorage#linksSharedFiles}),
   * linked into the snapshot's {@code directory}. One of a snapshot older than the base (which gc does
   * not keep for a build) that vanished meanwhile is left out with a warning; the next build then walks
   * back for it as before.
   *
   * @param own the names of the build's own parts (tagged, so none is an inherited one's)
   */
  static Attached attach(SnapshotStorage storage, String id, String directory, Plan plan, Set<String> own)
      throws IOException {
    List<Manifest.FileEntry> out = new ArrayList<>();
    boolean complete = plan.complete();
    for (File f : plan.files()) {
      Manifest.FileEntry entry = f.entry();
      if (own.contains(entry.name())) {
        LOG.warn("inherited vectors: {} of snapshot {} is named like a part of this build: left out", entry.name(),
            f.from());
        complete = false;
        continue;
      }
      String at = storage.fileKey(f.from(), directory, entry);
      // Only a file found by the walk past the base can have gone meanwhile: one request each for
      // those, none for the base's own list, however many nights it has grown over.
      if (!f.from().equals(plan.base()) && !present(storage, at, entry.size())) {
        LOG.warn("inherited vectors: {} of snapshot {} is gone or changed size: left out", entry.name(), f.from());
        complete = false;
        continue;
      }
      Manifest.FileEntry reference = entry.sharedFrom(f.from());
      if (storage.linksSharedFiles()) {
        storage.share(at, storage.fileKey(id, directory, reference));
      }
      out.add(reference);
    }
    return new Attached(out, complete);
  }

  private static boolean present(SnapshotStorage storage, String key, long size) throws IOException {
    return storage.exists(key) && storage.size(key) == size;
  }
}
