package dev.kiln.index;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Puts a base shard's committed files into a new shard directory for a writer that continues it. A
 * hard link costs nothing whatever the shard's size and shares the bytes the base snapshot verified;
 * where the two directories cannot share an inode (another file system) the file is copied. Lucene
 * writes every file once and never changes it, and the continuing writer only adds files (new
 * segments, new generations of deletes and of {@code segments_N}), so the base stays intact.
 */
final class BaseSegments {
  private BaseSegments() {}

  /**
   * Links (or copies) every file of {@code base} except its lock and fingerprint file into the empty
   * {@code directory}.
   */
  static int link(Path base, Path directory) throws IOException {
    if (!Files.isDirectory(base)) {
      throw new IOException("base shard " + base + " is not a directory");
    }
    int files = 0;
    boolean committed = false;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(base)) {
      for (Path f : entries) {
        String name = f.getFileName().toString();
        // The fingerprint file describes the base's documents, not the continued shard's: the
        // finished shard gets its own (DocFingerprintFile#write).
        if (name.equals("write.lock") || name.startsWith(DocFingerprintFile.NAME)
            || !Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        committed |= name.startsWith("segments_");
        Path target = directory.resolve(name);
        try {
          Files.createLink(target, f);
        } catch (UnsupportedOperationException | FileSystemException e) {
          Files.copy(f, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
        files++;
      }
    }
    if (!committed) {
      throw new IOException("base shard " + base + " holds no committed index (no segments_N file)");
    }
    return files;
  }
}
