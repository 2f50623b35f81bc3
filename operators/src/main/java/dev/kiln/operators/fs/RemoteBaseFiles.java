package dev.kiln.operators.fs;

import dev.kiln.index.store.CachedRemoteFile;
import dev.kiln.index.store.FetchStats;
import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SafePaths;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * The base snapshot of a changelog build on a remote root, as its writers need it: continuing
 * writers read the base shards and docstore parts on demand where they live ({@link #openShard},
 * {@link #openParents}); what is downloaded whole (a shard for {@link #fetchShard}, a fingerprint
 * file) goes into a local directory, through Flink's file systems as it uploads, and each such file is
 * checked against the base manifest's size and SHA-256 as it arrives (hashed while streaming), so a
 * damaged base object fails
 * the build instead of being copied into the next snapshot. Names come from a manifest the client
 * already structure-checked, and are resolved inside the target directory again here ({@link SafePaths}).
 * Serializable: built in the client from the plan, shipped with the writer functions.
 */
public final class RemoteBaseFiles implements BaseFiles {
  private static final long serialVersionUID = 1L;

  /**
   * One file of the base: its name relative to the shard (or docstore part) directory, size, SHA-256,
   * and the snapshot that holds its bytes (the base itself, or the earlier snapshot it references).
   */
  record BaseFile(String name, long size, String sha256, String owner) implements Serializable {
    private static final long serialVersionUID = 2L;
  }

  private final String root;
  private final String baseId;
  private final TreeMap<Integer, ArrayList<BaseFile>> shards = new TreeMap<>();
  /** Docstore files by part directory ({@code shard-00003}). */
  private final TreeMap<String, ArrayList<BaseFile>> parents = new TreeMap<>();

  private RemoteBaseFiles(String root, String baseId) {
    this.root = root;
    this.baseId = baseId;
  }

  /** The files of {@code base} (a parsed, checked manifest) under the remote {@code root}. */
  public static RemoteBaseFiles of(String root, Manifest base) {
    RemoteBaseFiles f = new RemoteBaseFiles(root, base.id());
    for (Manifest.ShardEntry s : base.shards()) {
      if (!SnapshotLayout.shardDirName(s.shard()).equals(s.directory())) {
        throw new SnapshotException("base snapshot " + base.id() + ": shard " + s.shard() + " lies in '"
            + s.directory() + "', expected " + SnapshotLayout.shardDirName(s.shard()));
      }
      ArrayList<BaseFile> files = new ArrayList<>();
      s.files().forEach(e -> files.add(new BaseFile(e.name(), e.size(), e.sha256(), e.owner(base.id()))));
      f.shards.put(s.shard(), files);
    }
    if (base.docstore() != null) {
      for (Manifest.FileEntry e : base.docstore().files()) {
        int slash = e.name().indexOf('/');
        if (slash < 0) {
          throw new SnapshotException("base snapshot " + base.id() + ": docstore file '" + e.name()
              + "' is not in a part directory");
        }
        f.parents.computeIfAbsent(e.name().substring(0, slash), k -> new ArrayList<>())
            .add(new BaseFile(e.name().substring(slash + 1), e.size(), e.sha256(), e.owner(base.id())));
      }
    }
    return f;
  }

  @Override
  public String baseId() {
    return baseId;
  }

  /** Downloads and verifies base shard {@code shard} into {@code target} (created); returns it. */
  @Override
  public java.nio.file.Path fetchShard(int shard, java.nio.file.Path target) throws IOException {
    List<BaseFile> files = shards.get(shard);
    if (files == null) {
      throw new SnapshotException("shard " + shard + " of base snapshot " + baseId + " is not in its manifest");
    }
    return fetch(SnapshotLayout.shardDirName(shard), files, target);
  }

  /**
   * Base shard {@code shard} as a continuing writer reads it: each file of the base (the fingerprint
   * file aside: the new shard writes its own) left where it lives under the root — its owner's key —
   * and read block by block on demand into sparse files under {@code cache} (created), so a rebuild
   * downloads what Lucene reads of its base, not the base. Not hashed here, since most of a file is
   * never read: the new snapshot references these files with the base's checksums, and every download
   * of it hashes them. The caller closes the files and removes {@code cache}.
   */
  public Map<String, CachedRemoteFile> openShard(int shard, java.nio.file.Path cache, FetchStats stats)
      throws IOException {
    List<BaseFile> files = shards.get(shard);
    if (files == null) {
      throw new SnapshotException("shard " + shard + " of base snapshot " + baseId + " is not in its manifest");
    }
    List<BaseFile> own = files.stream().filter(f -> !f.name().equals(SnapshotLayout.SHARD_FINGERPRINTS)).toList();
    return open(SnapshotLayout.shardDirName(shard), own, cache, stats);
  }

  /**
   * {@code -Dkiln.remote.block-bytes} as the JVM has it now, not as it had it when {@link CachedRemoteFile}
   * was loaded: a test that sets it for its builds gets it whatever ran before in the same JVM.
   */
  static int blockBytes() {
    return Integer.getInteger("kiln.remote.block-bytes", CachedRemoteFile.DEFAULT_BLOCK_BYTES);
  }

  /** The {@code files} of base directory {@code directory} as {@link CachedRemoteFile}s, by name. */
  private Map<String, CachedRemoteFile> open(String directory, List<BaseFile> files, java.nio.file.Path cache,
      FetchStats stats) throws IOException {
    Files.createDirectories(cache);
    Map<String, CachedRemoteFile> out = new HashMap<>();
    try {
      for (BaseFile f : files) {
        Path remote = new Path(root, SnapshotLayout.snapshotKey(f.owner()) + directory + "/"
            + SafePaths.check("base file", f.name()));
        out.put(f.name(), new CachedRemoteFile(f.name(), f.size(), new FlinkRangeReader(remote),
            SafePaths.resolve(cache, "base file", f.name()), blockBytes(), stats));
      }
      return out;
    } catch (IOException | RuntimeException e) {
      for (CachedRemoteFile f : out.values()) {
        try {
          f.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  @Override
  public BaseShard shard(int shard, java.nio.file.Path into, java.nio.file.Path cache, FetchStats stats)
      throws IOException {
    return new BaseShard.Remote(openShard(shard, cache, stats), cache);
  }

  /**
   * Downloads and verifies one file of base shard {@code shard} into {@code target} (created): what an
   * incremental build's parse subtasks need of the base (its fingerprint file), not the whole shard.
   */
  public java.nio.file.Path fetchShardFile(int shard, String name, java.nio.file.Path target) throws IOException {
    List<BaseFile> files = shards.get(shard);
    BaseFile file = files == null ? null
        : files.stream().filter(f -> f.name().equals(name)).findFirst().orElse(null);
    if (file == null) {
      throw new SnapshotException("shard " + shard + " of base snapshot " + baseId + " lists no " + name
          + " in its manifest");
    }
    fetch(SnapshotLayout.shardDirName(shard), List.of(file), target);
    return target.resolve(name);
  }

  /** Whether every shard of the base lists a file of this name. */
  public boolean everyShardHas(String name) {
    return !shards.isEmpty() && shards.values().stream().allMatch(fs -> fs.stream().anyMatch(f -> f.name().equals(name)));
  }

  /**
   * Base docstore part {@code shard} as a continuing docstore writer reads it, as {@link #openShard}
   * opens a shard: each file left under its owner's key and read block by block on demand into sparse
   * files under {@code cache} (created). The caller closes the files and removes {@code cache}.
   */
  public Map<String, CachedRemoteFile> openParents(int shard, java.nio.file.Path cache, FetchStats stats)
      throws IOException {
    List<BaseFile> files = parents.get(SnapshotLayout.shardDirName(shard));
    if (files == null) {
      throw new SnapshotException("docstore part " + shard + " of base snapshot " + baseId
          + " is not in its manifest");
    }
    return open(SnapshotLayout.PARENTS + "/" + SnapshotLayout.shardDirName(shard), files, cache, stats);
  }

  @Override
  public BaseShard parents(int shard, java.nio.file.Path into, java.nio.file.Path cache, FetchStats stats)
      throws IOException {
    return new BaseShard.Remote(openParents(shard, cache, stats), cache);
  }

  private java.nio.file.Path fetch(String directory, List<BaseFile> files, java.nio.file.Path target)
      throws IOException {
    Files.createDirectories(target);
    for (BaseFile f : files) {
      java.nio.file.Path local = SafePaths.resolve(target, "base file", f.name());
      // Where the bytes are: under the base, or under the earlier snapshot the base references.
      Path remote = new Path(root, SnapshotLayout.snapshotKey(f.owner()) + directory + "/"
          + SafePaths.check("base file", f.name()));
      Files.createDirectories(local.getParent());
      MessageDigest digest = Checksums.newDigest();
      long size;
      FileSystem fs = remote.getFileSystem();
      try (InputStream in = new DigestInputStream(fs.open(remote), digest);
          OutputStream out = Files.newOutputStream(local)) {
        size = in.transferTo(out);
      } catch (FileNotFoundException | NoSuchFileException e) {
        throw new SnapshotException("base snapshot " + baseId + " under " + root + ": " + directory + "/" + f.name()
            + " is missing", e);
      }
      String sha = HexFormat.of().formatHex(digest.digest());
      if (size != f.size() || !sha.equals(f.sha256())) {
        Files.deleteIfExists(local);
        throw new SnapshotException("base snapshot " + baseId + " under " + root + " failed verification and will"
            + " not be continued: " + directory + "/" + f.name() + ": " + (size != f.size()
                ? "size " + size + ", manifest says " + f.size()
                : "sha256 " + sha + ", manifest says " + f.sha256()));
      }
    }
    return target;
  }
}
