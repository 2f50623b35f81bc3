package dev.kiln.snapshot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.stream.Stream;

/**
 * The one recursive delete of a local directory tree. Symbolic links are not followed: a link inside
 * the tree (or the tree's root, if it is one) is removed, never what it points to.
 */
public final class LocalFiles {
  private LocalFiles() {}

  /**
   * Deletes {@code root} and everything under it, deepest first; nothing if it does not exist. Stops at
   * the first entry that cannot be deleted and throws.
   */
  public static void deleteTree(Path root) throws IOException {
    for (Path p : deepestFirst(root)) {
      Files.deleteIfExists(p);
    }
  }

  /**
   * Deletes {@code root} and everything under it as far as it can: an entry that cannot be deleted is
   * handed to {@code failed} and the rest are still tried. Throws only when the tree cannot be listed.
   */
  public static void deleteTree(Path root, BiConsumer<Path, IOException> failed) throws IOException {
    for (Path p : deepestFirst(root)) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException e) {
        failed.accept(p, e);
      }
    }
  }

  private static List<Path> deepestFirst(Path root) throws IOException {
    if (!Files.exists(root)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.sorted(Comparator.reverseOrder()).toList();
    }
  }
}
