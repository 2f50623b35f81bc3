package dev.kiln.jobs;

import dev.kiln.index.ParentStoreWriter;
import dev.kiln.publish.ManifestFiles;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * After the job: checks the parents docstore (one part per shard, every parent written once) and
 * describes its files for the manifest, so that snapshot verification covers it like the shards.
 */
final class ParentsDocstore {
  private ParentsDocstore() {}

  static Manifest.DocstoreEntry verify(SnapshotLayout layout, String id, int shards, long cut, long written)
      throws IOException {
    if (cut != written) {
      throw new SnapshotException("docstore of snapshot " + id + ": " + cut + " parents were cut but "
          + written + " written");
    }
    List<Manifest.FileEntry> files = new ArrayList<>();
    for (int shard = 0; shard < shards; shard++) {
      Path dir = layout.parentsDir(id, shard);
      if (!Files.isDirectory(dir)) {
        throw new SnapshotException("docstore of snapshot " + id + ": part " + dir.getFileName() + " is missing");
      }
      String prefix = SnapshotLayout.shardDirName(shard) + "/";
      for (Manifest.FileEntry f : ManifestFiles.describe(dir)) {
        files.add(new Manifest.FileEntry(prefix + f.name(), f.size(), f.sha256()));
      }
    }
    return new Manifest.DocstoreEntry(SnapshotLayout.PARENTS, ParentStoreWriter.FORMAT, written, files);
  }
}
