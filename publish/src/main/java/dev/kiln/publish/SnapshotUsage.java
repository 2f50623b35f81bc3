package dev.kiln.publish;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the snapshots of a root occupy ({@code kiln snapshots du}), counted by where each file's bytes
 * are stored: a file a later snapshot references ({@link Manifest.FileEntry#snapshot}) is stored once,
 * under its owner ({@link RootManifests.Listed#ownerKey}), however many snapshots list it. On a local
 * root a referenced file is a hard link of the owner's, so the owner's key stands for that one inode
 * there too, even once the owner's directory is gone.
 */
public final class SnapshotUsage {
  private SnapshotUsage() {}

  /**
   * One complete snapshot.
   *
   * @param state {@code published}, {@code held} or {@code complete}
   * @param files files its manifest lists
   * @param bytes what it needs: every file it lists
   * @param own bytes of the files it holds itself
   * @param referenced bytes of the files it references in earlier snapshots
   * @param records bytes of its manifest and the records beside it ({@code VERIFIED}, {@code HELD})
   * @param unique what removing only it would free: the bytes of the files no other complete snapshot
   *     lists, and its records (on an object store gc then writes a small {@code retired} marker where
   *     later snapshots reference its files)
   */
  public record Snapshot(String id, String state, long files, long bytes, long own, long referenced, long records,
      long unique) {}

  /**
   * A directory without a manifest: a running or dead build's data, or a removed snapshot's retired
   * files.
   *
   * @param state {@code building}, {@code orphaned} or {@code retired}
   * @param bytes its objects' bytes that no complete snapshot lists (a retired directory's referenced
   *     files are counted with the snapshots that list them)
   */
  public record Unfinished(String id, String state, long bytes) {}

  /**
   * The root.
   *
   * @param stored bytes stored under {@code snapshots/}: {@code listed} + {@code records} + {@code unlisted}
   * @param listed bytes of the files complete snapshots list, each file once
   * @param records bytes of complete snapshots' manifests and records beside them ({@code VERIFIED},
   *     {@code HELD})
   * @param unlisted bytes in directories without a manifest that no complete snapshot lists
   * @param keep the {@code --keep} the gc figures are for
   * @param expired the snapshots {@code gc --keep keep} would remove
   * @param orphans the unfinished directories it would remove
   * @param freed the bytes it would free
   * @param problems manifests that could not be read (not counted; gc removes no data while there are any)
   */
  public record Report(List<Snapshot> snapshots, List<Unfinished> unfinished, long stored, long listed, long records,
      long unlisted, int keep, List<String> expired, List<String> orphans, long freed, List<String> problems) {}

  /** Measures the root, and what {@code gc --keep keep --stale-hours (staleAfterMillis)} would free. */
  public static Report measure(SnapshotStore store, int keep, long staleAfterMillis) {
    SnapshotRetention.Plan plan = new SnapshotRetention(store).plan(keep, staleAfterMillis);
    RootManifests manifests = RootManifests.read(store);
    String current = store.current().orElse(null);
    Map<String, Long> sizes = new HashMap<>();
    Map<String, Integer> listers = new HashMap<>();
    Map<String, Map<String, Manifest.FileEntry>> bySnapshot = new LinkedHashMap<>();
    manifests.manifests().forEach((id, m) -> {
      Map<String, Manifest.FileEntry> keys = new LinkedHashMap<>();
      for (RootManifests.Listed f : RootManifests.files(m)) {
        String key = f.ownerKey(id);
        if (keys.putIfAbsent(key, f.entry()) == null) {
          sizes.put(key, f.entry().size());
          listers.merge(key, 1, Integer::sum);
        }
      }
      bySnapshot.put(id, keys);
    });
    Map<String, Long> records = new HashMap<>();
    for (String id : bySnapshot.keySet()) {
      records.put(id, recordBytes(store.storage(), id, bySnapshot.get(id).keySet()));
    }
    long recordTotal = records.values().stream().mapToLong(Long::longValue).sum();
    List<Snapshot> rows = new ArrayList<>();
    bySnapshot.forEach((id, keys) -> {
      long bytes = 0;
      long own = 0;
      long unique = 0;
      for (Map.Entry<String, Manifest.FileEntry> e : keys.entrySet()) {
        long size = e.getValue().size();
        bytes += size;
        own += e.getValue().referenced(id) ? 0 : size;
        unique += listers.get(e.getKey()) == 1 ? size : 0;
      }
      String state = id.equals(current) ? "published" : store.held(id).isPresent() ? "held" : "complete";
      long mine = records.get(id);
      rows.add(new Snapshot(id, state, keys.size(), bytes, own, bytes - own, mine, unique + mine));
    });
    long listed = sizes.values().stream().mapToLong(Long::longValue).sum();

    List<Unfinished> unfinished = new ArrayList<>();
    long unlisted = 0;
    long unlistedKept = 0;
    Set<String> building = new HashSet<>(plan.building());
    for (String id : store.allIds()) {
      String state = plan.building().contains(id) ? "building" : plan.retired().contains(id) ? "retired"
          : plan.orphans().contains(id) ? "orphaned" : null;
      if (state == null) {
        continue; // complete
      }
      long bytes = unlistedBytes(store.storage(), SnapshotLayout.snapshotKey(id), sizes.keySet());
      unfinished.add(new Unfinished(id, state, bytes));
      unlisted += bytes;
      unlistedKept += building.contains(id) ? bytes : 0;
    }

    Set<String> after = new HashSet<>();
    long remaining = unlistedKept;
    for (String id : plan.kept()) {
      after.addAll(bySnapshot.getOrDefault(id, Map.of()).keySet());
      remaining += records.getOrDefault(id, 0L);
    }
    remaining += after.stream().mapToLong(sizes::get).sum();
    long stored = listed + recordTotal + unlisted;
    List<String> problems = new ArrayList<>();
    manifests.unreadable().forEach((id, why) -> problems.add(id + ": " + why));
    return new Report(rows, unfinished, stored, listed, recordTotal, unlisted, keep, plan.expired(), plan.orphans(),
        stored - remaining, problems);
  }

  /**
   * Bytes of the objects at the top of a complete snapshot's directory that its manifest does not list
   * as files: the manifest itself and the records beside it.
   */
  private static long recordBytes(SnapshotStorage storage, String id, Set<String> listed) {
    String prefix = SnapshotLayout.snapshotKey(id);
    long bytes = 0;
    try {
      for (String name : storage.list(prefix)) {
        if (!listed.contains(prefix + name) && storage.list(prefix + name + "/").isEmpty()) {
          bytes += sizeOf(storage, prefix + name);
        }
      }
    } catch (IOException e) {
      throw new SnapshotException("cannot list " + prefix + ": " + e.getMessage(), e);
    }
    return bytes;
  }

  /** Bytes of the objects under {@code dir} that are not among {@code listed}. */
  private static long unlistedBytes(SnapshotStorage storage, String dir, Set<String> listed) {
    long bytes = 0;
    try {
      for (String name : storage.list(dir)) {
        String key = dir + name;
        List<String> children = storage.list(key + "/");
        if (!children.isEmpty()) {
          bytes += unlistedBytes(storage, key + "/", listed);
        } else if (!listed.contains(key)) {
          bytes += sizeOf(storage, key);
        }
      }
    } catch (IOException e) {
      throw new SnapshotException("cannot list " + dir + ": " + e.getMessage(), e);
    }
    return bytes;
  }

  private static long sizeOf(SnapshotStorage storage, String key) {
    try {
      return storage.size(key);
    } catch (IOException e) {
      return 0; // gone meanwhile, or an empty directory
    }
  }
}
