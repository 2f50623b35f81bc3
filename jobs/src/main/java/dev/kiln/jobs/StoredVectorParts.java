package dev.kiln.jobs;

import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The stored-vector parts the embed subtasks left in a snapshot, described for its manifest through
 * the root's storage. A part's SHA-256 comes from the {@code .sha256} record its writer left beside
 * it when there is one; otherwise it is computed by reading the part through the storage.
 */
final class StoredVectorParts {
  static final String CHECKSUM_SUFFIX = ".sha256";

  private StoredVectorParts() {}

  static List<Manifest.FileEntry> describe(SnapshotStorage storage, String id, String directory) throws IOException {
    String dir = SnapshotLayout.snapshotKey(id) + directory;
    List<Manifest.FileEntry> files = new ArrayList<>();
    List<String> names = storage.list(dir);
    for (String name : names) {
      if (name.endsWith(CHECKSUM_SUFFIX)) {
        continue;
      }
      String key = dir + "/" + name;
      String sha = names.contains(name + CHECKSUM_SUFFIX)
          ? new String(storage.read(key + CHECKSUM_SUFFIX, 128).orElseThrow(), java.nio.charset.StandardCharsets.US_ASCII)
              .trim()
          : sha256(storage, key);
      files.add(new Manifest.FileEntry(name, storage.size(key), sha));
    }
    return files;
  }

  private static String sha256(SnapshotStorage storage, String key) throws IOException {
    try (InputStream in = storage.open(key)) {
      return Checksums.sha256(in);
    }
  }
}
