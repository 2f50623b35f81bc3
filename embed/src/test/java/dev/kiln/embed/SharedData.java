package dev.kiln.embed;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the team's shared data ({@code models/}, {@code datasets/}): {@code -Dkiln.shared.dir}, else
 * the first {@code shared/} directory beside the repository or one of its parents (CI checks the
 * repository out with {@code shared/} beside it).
 */
final class SharedData {
  private SharedData() {}

  static Path dir() {
    String prop = System.getProperty("kiln.shared.dir");
    if (prop != null) {
      return Path.of(prop);
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      Path candidate = p.resolveSibling("shared");
      if (Files.isDirectory(candidate.resolve("models"))) {
        return candidate;
      }
    }
    throw new IllegalStateException("no shared/ directory with models/ beside the repository or its parents;"
        + " set -Dkiln.shared.dir");
  }
}
