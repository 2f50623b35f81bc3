package dev.kiln.search;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the shared BEIR datasets at test time ({@code shared/datasets} beside the clone or any
 * ancestor of it, or {@code -Dkiln.datasets=DIR}). They are read, never copied into the repository.
 */
public final class SharedDatasets {
  private SharedDatasets() {}

  public static Path dataset(String name) {
    String override = System.getProperty("kiln.datasets");
    if (override != null) {
      return require(Path.of(override).resolve(name), name);
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("shared").resolve("datasets").resolve(name);
      if (Files.isDirectory(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("dataset '" + name + "' not found: expected shared/datasets/"
        + name + " beside the clone (or set -Dkiln.datasets=DIR)");
  }

  private static Path require(Path p, String name) {
    if (!Files.isDirectory(p)) {
      throw new IllegalStateException("dataset '" + name + "' not found under " + p.getParent());
    }
    return p;
  }
}
