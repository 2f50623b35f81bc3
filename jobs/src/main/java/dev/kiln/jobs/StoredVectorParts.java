package dev.kiln.jobs;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.vectors.RollingParts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The stored-vector parts the embed subtasks left in a snapshot, described for its manifest through
 * the root's storage without reading them: each closed part has its SHA-256 recorded beside it
 * ({@link RollingParts}). A part without that record is the open part of a failed attempt — a retry
 * wrote its vectors again — and is removed, as are the records themselves once the manifest takes
 * over their checksums, so the committed snapshot holds exactly the parts its manifest lists.
 */
final class StoredVectorParts {
  private StoredVectorParts() {}

  static List<Manifest.FileEntry> describe(SnapshotStorage storage, String id, String directory) throws IOException {
    String dir = SnapshotLayout.snapshotKey(id) + directory;
    List<String> names = storage.list(dir);
    List<Manifest.FileEntry> files = new ArrayList<>();
    for (String name : names) {
      String key = dir + "/" + name;
      if (name.endsWith(".parquet") && names.contains(name + RollingParts.CHECKSUM_SUFFIX)) {
        String sha = new String(storage.read(key + RollingParts.CHECKSUM_SUFFIX, 128).orElseThrow(),
            StandardCharsets.US_ASCII).trim();
        files.add(new Manifest.FileEntry(name, storage.size(key), sha));
      }
    }
    for (String name : names) {
      boolean listed = files.stream().anyMatch(f -> f.name().equals(name));
      if (!listed) {
        storage.delete(dir + "/" + name);
      }
    }
    return files;
  }
}
