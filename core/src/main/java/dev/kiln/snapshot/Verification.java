package dev.kiln.snapshot;

import java.util.Locale;

/**
 * How much of a snapshot a reader hashes when it opens it ({@code --verify} of {@code kiln search},
 * {@code eval} and {@code serve}). Sizes and the file set are always checked.
 */
public enum Verification {
  /**
   * Hash only the files a {@code VERIFIED} record for this manifest does not vouch for: files changed
   * or copied since they were verified, files modified just before, or every file when there is no
   * record, a version 1 record, or a store without file identities (the default: fast at scale).
   */
  RECORD,
  /** Hash every file read, whatever a record says. */
  FULL;

  /** {@code record} or {@code full}, as the command line spells them. */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The mode a command line names; throws {@link IllegalArgumentException} listing the valid ones. */
  public static Verification parse(String value) {
    for (Verification v : values()) {
      if (v.key().equals(value)) {
        return v;
      }
    }
    throw new IllegalArgumentException("unknown verification '" + value + "': valid values are record, full");
  }
}
