package dev.kiln.publish;

import dev.kiln.internal.PausePoint;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Deletes the objects of a snapshot directory that has no manifest — a snapshot gc removed, a dead
 * build's data — except those in {@code keep}: the files remaining manifests reference
 * ({@link RootManifests#storedKeys}) and whatever the caller keeps besides (a failed build's stored
 * vectors). The directory's {@code STAGING} marker is left for the caller, who decides what it says
 * next: nothing kept, the caller removes it and the directory; something kept, it marks the
 * directory {@code retired} (or {@code resumable}).
 */
final class SnapshotSweep {
  private SnapshotSweep() {}

  /**
   * What a sweep did.
   *
   * @param kept keys under the directory left in place because {@code keep} names them, sorted
   * @param deleted objects (or subtrees) deleted
   */
  record Outcome(List<String> kept, int deleted) {}

  /** Sweeps {@code snapshots/id/}, keeping the keys in {@code keep} and the staging marker. */
  static Outcome sweep(SnapshotStorage storage, String id, Set<String> keep) throws IOException {
    String prefix = SnapshotLayout.snapshotKey(id);
    List<String> under = keep.stream().filter(k -> k.startsWith(prefix)).sorted().toList();
    if (under.isEmpty()) {
      // Nothing references the directory: one recursive delete, marker last so that a sweep killed
      // half-way still leaves a marked (or, on a local root, an unmarked, hence orphaned) directory.
      int deleted = 0;
      for (String name : storage.list(prefix)) {
        if (!(prefix + name).equals(SnapshotLayout.stagingKey(id))) {
          deleted += remove(storage, prefix + name);
          PausePoint.reached("gc-sweep");
        }
      }
      return new Outcome(List.of(), deleted);
    }
    List<String> kept = new ArrayList<>();
    int deleted = walk(storage, prefix, SnapshotLayout.stagingKey(id), under, kept);
    return new Outcome(kept, deleted);
  }

  private static int walk(SnapshotStorage storage, String dir, String staging, List<String> keep, List<String> kept)
      throws IOException {
    int deleted = 0;
    for (String name : storage.list(dir)) {
      String key = dir + name;
      if (key.equals(staging)) {
        continue;
      }
      if (keep.contains(key)) {
        kept.add(key);
      } else if (keep.stream().anyMatch(k -> k.startsWith(key + "/"))) {
        deleted += walk(storage, key + "/", staging, keep, kept);
      } else {
        deleted += remove(storage, key);
        PausePoint.reached("gc-sweep");
      }
    }
    return deleted;
  }

  /** Deletes one object, or a whole subtree when {@code key} is a directory. */
  private static int remove(SnapshotStorage storage, String key) throws IOException {
    if (storage.list(key + "/").isEmpty()) {
      storage.delete(key);
    } else {
      storage.deleteTree(key + "/");
      storage.delete(key);
    }
    return 1;
  }
}
