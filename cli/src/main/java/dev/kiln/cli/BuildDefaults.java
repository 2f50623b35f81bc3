package dev.kiln.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the build's default configuration lives, which the search commands read file system settings from. */
public final class BuildDefaults {
  /** Relative to the working directory, else to the Kiln installation ({@code kiln.home}). */
  public static final String DEFAULT_CONFIG = "configs/build.yaml";

  private BuildDefaults() {}

  /** {@code configs/build.yaml} of the working directory, else of the Kiln installation. */
  public static Path config() {
    Path local = Path.of(DEFAULT_CONFIG);
    if (Files.isRegularFile(local)) {
      return local;
    }
    return Path.of(System.getProperty("kiln.home", ".")).resolve(DEFAULT_CONFIG);
  }
}
