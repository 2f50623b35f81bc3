package dev.kiln.publish;

import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.Manifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Lists a shard directory's files with their sizes and SHA-256 for the manifest. */
public final class ManifestFiles {
  /** Lucene's lock file is empty, meaningless to readers, and may be removed: never listed. */
  static final String WRITE_LOCK = "write.lock";

  private ManifestFiles() {}

  public static List<Manifest.FileEntry> describe(Path shardDir) throws IOException {
    List<Manifest.FileEntry> files = new ArrayList<>();
    try (Stream<Path> list = Files.list(shardDir)) {
      for (Path p : list.sorted().toList()) {
        String name = p.getFileName().toString();
        if (name.equals(WRITE_LOCK) || !Files.isRegularFile(p)) {
          continue;
        }
        files.add(new Manifest.FileEntry(name, Files.size(p), Checksums.sha256(p)));
      }
    }
    return files;
  }
}
