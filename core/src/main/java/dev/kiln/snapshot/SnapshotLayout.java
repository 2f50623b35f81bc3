package dev.kiln.snapshot;

import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * Where things live under a snapshots root. This class is the only place that knows the layout:
 *
 * <pre>
 * ROOT/CURRENT                              one line: the published snapshot id
 * ROOT/snapshots/ID/manifest.json           written after every shard file, before CURRENT
 * ROOT/snapshots/ID/shard-00000/...         one Lucene index per shard
 * ROOT/snapshots/ID/parents/shard-00000/... parents docstore per shard (parent-child chunking only)
 * ROOT/snapshots/ID/STAGING                 present while the snapshot is being built or deleted
 * ROOT/snapshots/ID/embeddings/part-*.parquet stored chunk vectors
 * ROOT/snapshots/ID/corpus-files.tsv        the corpus files a corpus build saw ({@link CorpusFiles})
 * ROOT/snapshots/ID/VERIFIED                every byte checked against this manifest (at publish / download)
 * ROOT/snapshots/ID/HELD                    the build failed a gate: publish only with --force
 * </pre>
 *
 * <p>Paths are for code that writes or memory-maps shard files locally; keys ({@code ...Key}) address
 * the same objects through a {@link SnapshotStorage}.
 */
public final class SnapshotLayout {
  public static final String CURRENT = "CURRENT";
  public static final String MANIFEST = "manifest.json";
  public static final String STAGING = "STAGING";
  /**
   * Lock objects a store may keep beside {@link #STAGING} for its compare-and-set: a local root's
   * {@code .STAGING.lock} stays (a file lock's file), HDFS's {@code STAGING.lock} exists while held. No data.
   */
  public static final Set<String> STAGING_LOCKS = Set.of("." + STAGING + ".lock", STAGING + ".lock");
  public static final String SNAPSHOTS = "snapshots";
  /** Record that every file was checked against the manifest ({@link VerifiedRecord}). */
  public static final String VERIFIED = "VERIFIED";
  /** Record that the build failed a gate and kept its data ({@link HeldRecord}). */
  public static final String HELD = "HELD";
  /** Directory of a snapshot's stored vectors. */
  public static final String EMBEDDINGS = "embeddings";
  /**
   * The corpus files a corpus build saw, with sizes and modification times ({@link CorpusFiles}): what
   * the next incremental build compares the corpus with. Top level; listed in the manifest's
   * {@code corpus_files}.
   */
  public static final String CORPUS_FILES = "corpus-files.tsv";

  /**
   * Each shard directory's document fingerprint file (format in {@code index.DocFingerprintFile}):
   * listed with the shard's files, read by the next incremental build, never by a searcher — so a
   * serving copy does not download it and a serving check does not look at it.
   */
  public static final String SHARD_FINGERPRINTS = "doc-fingerprints.kfp";
  /** {@code CURRENT} holds one id: anything longer is not a pointer and is never read whole. */
  public static final int MAX_CURRENT_BYTES = 1024;
  /** Staging markers and the small records beside a manifest. */
  public static final int MAX_RECORD_BYTES = 64 * 1024;
  /**
   * Largest manifest read (default 64 MiB, about a million files; {@code -Dkiln.manifest.max-bytes=N}):
   * a hostile or corrupt one must not exhaust the reader's memory.
   */
  public static final int MAX_MANIFEST_BYTES =
      (int) Math.min(Integer.MAX_VALUE - 16, Long.getLong("kiln.manifest.max-bytes", 64L << 20));
  /** Directory of a snapshot's parents docstore (parent-child chunking only). */
  public static final String PARENTS = "parents";
  /** Quarantined records, by default {@code <root>/quarantine/<snapshot id>/}: outside any snapshot, so a failed build keeps them. */
  public static final String QUARANTINE = "quarantine";
  /** Directory under the root that holds one directory per snapshot. */
  public static final String SNAPSHOTS_DIR = SNAPSHOTS;
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
    return root.resolve(SNAPSHOTS_DIR);
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

  /** The parents docstore of one shard: {@code snapshots/<id>/parents/shard-00000/}. */
  public Path parentsDir(String id, int shard) {
    return snapshotDir(id).resolve(PARENTS).resolve(shardDirName(shard));
  }

  /** Key of a snapshot's "directory", ending in {@code /}. */
  public static String snapshotKey(String id) {
    return SNAPSHOTS + "/" + checkId(id) + "/";
  }

  public static String manifestKey(String id) {
    return snapshotKey(id) + MANIFEST;
  }

  public static String stagingKey(String id) {
    return snapshotKey(id) + STAGING;
  }

  public static String verifiedKey(String id) {
    return snapshotKey(id) + VERIFIED;
  }

  public static String heldKey(String id) {
    return snapshotKey(id) + HELD;
  }

  public static String shardKey(String id, int shard) {
    return snapshotKey(id) + shardDirName(shard) + "/";
  }

  public static String parentsKey(String id, int shard) {
    return snapshotKey(id) + PARENTS + "/" + shardDirName(shard) + "/";
  }

  /**
   * Key of file {@code f} of directory {@code directory} (a shard, {@code parents}, {@code embeddings})
   * as snapshot {@code id}'s manifest lists it: under its owner's directory — {@code id} itself, or
   * the earlier snapshot a format-2 entry references ({@link Manifest.FileEntry#snapshot}). The name
   * is checked to stay inside that directory.
   */
  public static String fileKey(String id, String directory, Manifest.FileEntry f) {
    return SafePaths.key(snapshotKey(f.owner(id)), "file", directory + "/" + f.name());
  }

  /** The local path of {@link #fileKey}: where the bytes of {@code f} live under this root. */
  public Path file(String id, String directory, Manifest.FileEntry f) {
    return root.resolve(fileKey(id, directory, f));
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
  public static String checkId(String id) {
    if (!isSnapshotId(id)) {
      throw new IllegalArgumentException("not a snapshot id: '" + id + "'");
    }
    return id;
  }
}
