package dev.kiln.snapshot;

import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * Where things live under a snapshots root. This class is the only place that knows the layout:
 *
 * <pre>
 * ROOT/CURRENT                              one line: the published snapshot id
 * ROOT/snapshots/ID/manifest.json           written after every shard file, before CURRENT
 * ROOT/snapshots/ID/shard-00000/...         one Lucene index per shard
 * </pre>
 */
public final class SnapshotLayout {
  public static final String CURRENT = "CURRENT";
  public static final String MANIFEST = "manifest.json";
  private static final Pattern ID = Pattern.compile("[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}");
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT);

  private final Path root;

  public SnapshotLayout(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  public Path root() {
    return root;
  }

  public Path current() {
    return root.resolve(CURRENT);
  }

  public Path snapshotsDir() {
    return root.resolve("snapshots");
  }

  public Path snapshotDir(String id) {
    return snapshotsDir().resolve(checkId(id));
  }

  public Path manifest(String id) {
    return snapshotDir(id).resolve(MANIFEST);
  }

  public Path shardDir(String id, int shard) {
    return snapshotDir(id).resolve(shardDirName(shard));
  }

  /** Directory of a snapshot's parents docstore (parent-child chunking only). */
  public static final String PARENTS = "parents";

  /** The parents docstore of one shard: {@code snapshots/<id>/parents/shard-00000/}. */
  public Path parentsDir(String id, int shard) {
    return snapshotDir(id).resolve(PARENTS).resolve(shardDirName(shard));
  }

  public static String shardDirName(int shard) {
    return String.format(Locale.ROOT, "shard-%05d", shard);
  }

  /** A new id: UTC time to the second (so ids sort by creation) plus a random suffix. */
  public static String newSnapshotId() {
    return ZonedDateTime.now(ZoneOffset.UTC).format(STAMP)
        + "-" + String.format(Locale.ROOT, "%06x", ThreadLocalRandom.current().nextInt(1 << 24));
  }

  public static boolean isSnapshotId(String s) {
    return s != null && ID.matcher(s).matches();
  }

  /** Ids come from files a user can edit: never let one escape the root. */
  static String checkId(String id) {
    if (!isSnapshotId(id)) {
      throw new IllegalArgumentException("not a snapshot id: '" + id + "'");
    }
    return id;
  }
}
