package dev.kiln.publish;

import dev.kiln.internal.PausePoint;
import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the objects of a snapshot directory that has no manifest — a snapshot gc removed, a dead
 * build's data — except those in {@code keep}: the files remaining manifests reference
 * ({@link RootManifests#storedKeys}) and whatever the caller keeps besides (a failed build's stored
 * vectors). The directory's {@code STAGING} marker is left for the caller, who decides what it says
 * next: nothing kept, the caller removes it and the directory ({@link #removeEmpty}); something kept,
 * it marks the directory {@code retired} (or {@code resumable}).
 *
 * <p>On an object store the sweep walks the directory one level at a time and deletes single objects,
 * deepest first, then each directory it emptied: it never deletes by prefix, so no object it has not
 * judged goes, and an S3 server backed by a file system (s3proxy) is never asked to delete a
 * directory that still holds files. On a local root a subtree that keeps nothing goes through
 * {@code LocalFiles}, which removes symbolic links and never follows them.
 */
final class SnapshotSweep {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotSweep.class);

  private SnapshotSweep() {}

  /**
   * What a sweep did.
   *
   * @param kept keys under the directory left in place because {@code keep} names them
   * @param deleted objects (on a local root: objects or subtrees) deleted
   */
  record Outcome(List<String> kept, int deleted) {}

  /** Sweeps {@code snapshots/id/}, keeping the keys in {@code keep} and the staging marker. */
  static Outcome sweep(SnapshotStorage storage, String id, Set<String> keep) throws IOException {
    String prefix = SnapshotLayout.snapshotKey(id);
    Walk walk = new Walk(storage, SnapshotLayout.stagingKey(id),
        keep.stream().filter(k -> k.startsWith(prefix)).sorted().toList());
    walk.dir(prefix);
    return new Outcome(walk.kept, walk.deleted);
  }

  /** Removes the directory of {@code id} once it is empty (its marker included); a directory that is not is left. */
  static void removeEmpty(SnapshotStorage storage, String id) {
    String prefix = SnapshotLayout.snapshotKey(id);
    try {
      if (storage.list(prefix).isEmpty()) {
        storage.delete(prefix.substring(0, prefix.length() - 1)); // the directory itself, where the store has one
      }
    } catch (IOException e) {
      LOG.info("gc: the directory of {} was not removed ({}); a later gc removes it", id, e.toString());
    }
  }

  /** One sweep's walk. */
  private static final class Walk {
    private final SnapshotStorage storage;
    private final String staging;
    private final List<String> keep;
    private final List<String> kept = new ArrayList<>();
    private int deleted;

    Walk(SnapshotStorage storage, String staging, List<String> keep) {
      this.storage = storage;
      this.staging = staging;
      this.keep = keep;
    }

    /** Deletes an emptied directory, where the store has directories; false when it could not. */
    private boolean removeDirectory(String key) {
      try {
        storage.delete(key);
        return true;
      } catch (IOException e) {
        LOG.info("gc: {} was not removed ({}); a later gc removes it", key, e.toString());
        return false;
      }
    }

    /** Sweeps the directory {@code dir} (ending in {@code /}); true when nothing in it was kept. */
    boolean dir(String dir) throws IOException {
      boolean empty = true;
      for (String name : storage.list(dir)) {
        String key = dir + name;
        if (key.equals(staging) || keep.contains(key)) {
          if (!key.equals(staging)) {
            kept.add(key);
          }
          empty = false;
        } else if (keep.stream().anyMatch(k -> k.startsWith(key + "/"))) {
          empty &= dir(key + "/") && removeDirectory(key);
        } else {
          empty &= whole(key);
        }
      }
      return empty;
    }

    /** Deletes {@code key} and, when it is a directory, everything under it; true when it is gone. */
    private boolean whole(String key) throws IOException {
      if (storage instanceof LocalSnapshotStorage) {
        // The one recursive delete of a local tree (LocalFiles): a link is removed, never followed.
        storage.deleteTree(key + "/");
      } else if (!storage.list(key + "/").isEmpty()) {
        return dir(key + "/") && removeDirectory(key);
      } else {
        storage.delete(key);
      }
      deleted++;
      PausePoint.reached("gc-sweep");
      return true;
    }
  }
}
