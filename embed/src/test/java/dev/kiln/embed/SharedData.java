package dev.kiln.embed;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds the team's shared data ({@code models/}, {@code datasets/}): {@code -Dkiln.shared.dir}, else
 * the first {@code shared/} directory beside the repository or one of its parents (CI checks the
 * repository out with {@code shared/} beside it). Without it a test that needs it is skipped with the
 * reason (a fresh clone has nothing beside it), unless {@code -Dkiln.tests.require-shared=true}
 * ({@code .ci/run} sets it) makes that a failure, so CI can never skip these tests silently.
 */
final class SharedData {
  private SharedData() {}

  /** The property under which missing shared data fails a test instead of skipping it. */
  static final String REQUIRE = "kiln.tests.require-shared";

  /** {@code what} (a path relative to the shared directory), or the test is skipped or failed. */
  static Path require(String what) {
    Path dir = find();
    if (dir != null && Files.exists(dir.resolve(what))) {
      return dir.resolve(what);
    }
    String reason = "shared data '" + what + "' not found (no shared/ beside the clone or its parents, and no"
        + " -Dkiln.shared.dir)";
    if (Boolean.getBoolean(REQUIRE)) {
      throw new IllegalStateException(reason + "; -D" + REQUIRE + "=true makes it mandatory");
    }
    Assumptions.abort("skipped: " + reason + "; -D" + REQUIRE + "=true (as in .ci/run) makes this a failure");
    return null;
  }

  private static Path find() {
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
    return null;
  }
}
