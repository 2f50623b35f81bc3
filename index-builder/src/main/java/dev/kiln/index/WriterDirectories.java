package dev.kiln.index;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** The check every index writer makes before it writes: its directory holds nothing from an earlier attempt. */
final class WriterDirectories {
  private WriterDirectories() {}

  /**
   * Throws unless {@code directory} is absent or empty. The listing is closed here: an unclosed
   * {@code Files.list} holds a file descriptor until the garbage collector happens to run, and a
   * retried writer refused on every attempt would pile them up.
   */
  static void requireEmpty(Path directory, String what) throws IOException {
    if (!Files.isDirectory(directory)) {
      if (Files.exists(directory)) {
        throw new IOException(what + " " + directory + " is not a directory");
      }
      return;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
      if (entries.iterator().hasNext()) {
        throw new IOException(what + " " + directory + " is not empty: refusing to mix two attempts");
      }
    }
  }
}
