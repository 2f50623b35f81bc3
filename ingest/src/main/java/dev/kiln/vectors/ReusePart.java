package dev.kiln.vectors;

import java.io.Serializable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One stored-vector part file offered for reuse, with the SHA-256 its bytes must have: the embed
 * subtask that reads it checks it, so the client hashes nothing and each byte is hashed by the one
 * subtask that needs it.
 *
 * @param location an absolute local path or a remote URI
 * @param sha256 the checksum the snapshot's manifest (or the part's own record, for a resumed part)
 *     gives it
 */
public record ReusePart(String location, String sha256) implements Serializable {
  /** {@link RollingParts#partName}: subtask and number of subtasks of the build that wrote it. */
  private static final Pattern NAME = Pattern.compile("part-(\\d{5})-of-(\\d{5})-\\d{2}-\\d{5}(?:-[0-9A-Za-z][0-9A-Za-z-]*)?\\.parquet");

  public ReusePart {
    if (location == null || sha256 == null) {
      throw new IllegalArgumentException("a reused part needs its location and checksum");
    }
  }

  /** The file name, the last segment of the location. */
  public String name() {
    int slash = Math.max(location.lastIndexOf('/'), location.lastIndexOf('\\'));
    return location.substring(slash + 1);
  }

  /**
   * Whether embed subtask {@code subtask} of {@code subtasks} may find a vector of its key partition
   * here. A part written by subtask {@code s} of {@code n} holds only keys with
   * {@code ContentKey.partition(key, n) == s}: with as many subtasks now, only subtask {@code s} needs
   * it. A part of another parallelism, or named before the count was in the name, may hold keys of any
   * partition.
   */
  public boolean neededBy(int subtask, int subtasks) {
    Matcher m = NAME.matcher(name());
    if (!m.matches() || Integer.parseInt(m.group(2)) != subtasks) {
      return true;
    }
    return Integer.parseInt(m.group(1)) == subtask;
  }
}
