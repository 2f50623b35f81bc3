package dev.kiln.search;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds the shared BEIR datasets at test time ({@code shared/datasets} beside the clone or any
 * ancestor of it, or {@code -Dkiln.datasets=DIR}). They are read, never copied into the repository.
 * Without them a test that needs one is skipped with the reason (a fresh clone has nothing beside
 * it), unless {@code -Dkiln.tests.require-shared=true} ({@code .ci/run} sets it) makes that a
 * failure, so CI can never skip these tests silently.
 */
public final class SharedDatasets {
  private SharedDatasets() {}

  /** The property under which a missing dataset fails a test instead of skipping it. */
  public static final String REQUIRE = "kiln.tests.require-shared";

  /** The dataset's folder; without it the calling test is skipped with the reason (or failed, see above). */
  public static Path dataset(String name) {
    Path p = find(name);
    if (p != null) {
      return p;
    }
    String override = System.getProperty("kiln.datasets");
    return missing(name, override != null ? "not found under " + override
        : "not found: expected shared/datasets/" + name + " beside the clone (or set -Dkiln.datasets=DIR)");
  }

  /** The dataset's folder, or {@code null} when it is absent (for set-up that must not skip by itself). */
  public static Path find(String name) {
    String override = System.getProperty("kiln.datasets");
    if (override != null) {
      Path p = Path.of(override).resolve(name);
      return Files.isDirectory(p) ? p : null;
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("shared").resolve("datasets").resolve(name);
      if (Files.isDirectory(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  private static Path missing(String name, String why) {
    String reason = "dataset '" + name + "' " + why;
    if (Boolean.getBoolean(REQUIRE)) {
      throw new IllegalStateException(reason + "; -D" + REQUIRE + "=true makes it mandatory");
    }
    Assumptions.abort("skipped: " + reason + "; -D" + REQUIRE + "=true (as in .ci/run) makes this a failure");
    return null;
  }
}
