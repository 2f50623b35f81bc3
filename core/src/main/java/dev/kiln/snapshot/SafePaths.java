package dev.kiln.snapshot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * The one check that a path read from a manifest (a directory or file name) stays inside its
 * snapshot. Manifests and {@code CURRENT} are data that anyone with write access to a bucket can
 * forge, so every reader — {@link SnapshotStore}, the remote mirror, the searcher, the snapshots
 * command — resolves names through here before reading, writing or deleting anything.
 *
 * <p>A name is one or more {@code /}-separated segments of {@code [A-Za-z0-9._-]}, none starting with a
 * dot (so no {@code .} or {@code ..}, no hidden files): no absolute path, no empty segment
 * ({@code //}), no backslash, drive letter, control character or URI scheme. That is every name
 * Lucene and Kiln write.
 */
public final class SafePaths {
  private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}");
  /** Deep enough for {@code parents/shard-00000/_0.cfs}; nothing Kiln writes is deeper. */
  private static final int MAX_SEGMENTS = 4;

  private SafePaths() {}

  /** Whether {@code name} is a safe relative name (see the class comment). */
  public static boolean isSafe(String name) {
    if (name == null || name.isEmpty() || name.length() > 1024) {
      return false;
    }
    String[] parts = name.split("/", -1);
    if (parts.length > MAX_SEGMENTS) {
      return false;
    }
    for (String p : parts) {
      if (!SEGMENT.matcher(p).matches()) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code name} itself, checked.
   *
   * @param what what the name is, for the message ("file name in shard-00000")
   * @throws SnapshotException naming the offending value when it is not a safe relative name
   */
  public static String check(String what, String name) {
    if (!isSafe(name)) {
      throw new SnapshotException(what + " '" + printable(name) + "' is not a relative path inside the snapshot"
          + " (absolute, '..', '//', or characters outside [A-Za-z0-9._-/]): the manifest is refused");
    }
    return name;
  }

  /**
   * {@code base/name}, after checking the name and that the result, with every symbolic link that
   * already exists on the way resolved, is still under {@code base}.
   */
  public static Path resolve(Path base, String what, String name) {
    check(what, name);
    Path b = base.toAbsolutePath().normalize();
    Path p = b.resolve(name).normalize();
    if (!p.startsWith(b) || p.equals(b)) {
      throw new SnapshotException(what + " '" + printable(name) + "' escapes " + b);
    }
    try {
      Path existing = p;
      while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
        existing = existing.getParent();
      }
      if (existing != null && Files.exists(b)) {
        Path realBase = b.toRealPath();
        Path real = existing.toRealPath();
        if (!real.startsWith(realBase)) {
          throw new SnapshotException(what + " '" + printable(name) + "' leads out of " + b + " through a link ("
              + real + ")");
        }
      }
    } catch (IOException e) {
      throw new SnapshotException("cannot resolve " + p + ": " + e.getMessage(), e);
    }
    return p;
  }

  /** The key of {@code name} under {@code prefix} (ending in {@code /}), after checking the name. */
  public static String key(String prefix, String what, String name) {
    return prefix + check(what, name);
  }

  /** A value for an error message: control characters escaped, long values cut. */
  static String printable(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length() && b.length() < 200; i++) {
      char c = s.charAt(i);
      b.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return s.length() > 200 ? b + "…" : b.toString();
  }
}
