package dev.kiln.snapshot.io;

import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A snapshots root on a remote store, seen through a local copy: Lucene needs random access to its
 * files, so a snapshot is downloaded into a local root with the same layout and opened from there.
 * Downloads follow only {@code CURRENT → manifest → files}, through the root's
 * {@link SnapshotStorage}, and every file is checked against the manifest's size and SHA-256 as it
 * arrives (a file already here is kept only if it still matches), so a corrupt object is refused
 * before the searcher sees it.
 */
public final class SnapshotMirror {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotMirror.class);

  private final String remoteRoot;
  private final SnapshotLayout local;
  private SnapshotStorage storage;

  /** A mirror whose storage takes its S3 settings from the environment (see {@link S3Settings}). */
  public SnapshotMirror(String remoteRoot, java.nio.file.Path localRoot) {
    this(null, remoteRoot, localRoot);
  }

  public SnapshotMirror(SnapshotStorage storage, String remoteRoot, java.nio.file.Path localRoot) {
    this.storage = storage;
    this.remoteRoot = remoteRoot;
    this.local = new SnapshotLayout(localRoot);
  }

  public SnapshotLayout local() {
    return local;
  }

  public synchronized SnapshotStorage storage() {
    if (storage == null) {
      storage = RemoteStorages.open(remoteRoot, Map.of());
    }
    return storage;
  }

  public Path remote(String relative) {
    return new Path(remoteRoot, relative);
  }

  public Path remoteSnapshotDir(String id) {
    return remote(SnapshotLayout.SNAPSHOTS_DIR + "/" + id);
  }

  /** The id the remote {@code CURRENT} names, or {@code null} when nothing was published. */
  public String remoteCurrent() {
    return new SnapshotStore(local, storage()).current().orElse(null);
  }

  /**
   * Downloads a published snapshot ({@code id}, or the one {@code CURRENT} names when null) and
   * points the local {@code CURRENT} at it.
   *
   * @return the local root to open
   */
  public java.nio.file.Path localize(String id) throws IOException {
    String snapshot = id != null ? id : remoteCurrent();
    if (snapshot == null) {
      throw new SnapshotException("no published snapshot under " + remoteRoot + " (no CURRENT)");
    }
    byte[] manifestBytes = storage().read(SnapshotLayout.manifestKey(snapshot)).orElseThrow(() ->
        new SnapshotException("snapshot " + snapshot + " has no manifest under " + remoteRoot));
    Manifest m = SnapshotStore.json().readValue(manifestBytes, Manifest.class);
    int fetched = 0;
    for (Manifest.ShardEntry shard : m.shards()) {
      fetched += fetch(snapshot, shard.directory(), shard.files());
    }
    if (m.embeddings() != null) {
      fetched += fetch(snapshot, m.embeddings().directory(), m.embeddings().files());
    }
    if (m.docstore() != null) {
      fetched += fetch(snapshot, m.docstore().directory(), m.docstore().files());
    }
    // The manifest last, as on the remote side: a local copy is complete once it has one.
    writeLocal(local.manifest(snapshot), manifestBytes);
    writeLocal(local.current(), (snapshot + "\n").getBytes(StandardCharsets.UTF_8));
    LOG.info("snapshot {} of {}: {} files downloaded and verified into {}", snapshot, remoteRoot, fetched, local.root());
    return local.root();
  }

  /** Downloads the listed files of one directory of a snapshot that are not already here intact. */
  private int fetch(String snapshot, String directory, List<Manifest.FileEntry> files) throws IOException {
    int fetched = 0;
    for (Manifest.FileEntry f : files) {
      java.nio.file.Path target = local.snapshotDir(snapshot).resolve(directory).resolve(f.name());
      if (Files.isRegularFile(target) && Files.size(target) == f.size() && f.sha256().equals(Checksums.sha256(target))) {
        continue;
      }
      String name = directory + "/" + f.name();
      download(SnapshotLayout.snapshotKey(snapshot) + name, target);
      long size = Files.size(target);
      String sha = Checksums.sha256(target);
      if (size != f.size() || !sha.equals(f.sha256())) {
        Files.delete(target);
        throw new SnapshotException("snapshot " + snapshot + " under " + remoteRoot + " failed verification and will"
            + " not be used: " + name + ": " + (size != f.size() ? "size " + size + ", manifest says " + f.size()
                : "sha256 " + sha + ", manifest says " + f.sha256()));
      }
      fetched++;
    }
    return fetched;
  }

  private void download(String key, java.nio.file.Path target) throws IOException {
    Files.createDirectories(target.getParent());
    java.nio.file.Path tmp = target.resolveSibling("." + target.getFileName() + ".part");
    try (InputStream in = storage().open(key)) {
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
    }
    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
  }

  private static void writeLocal(java.nio.file.Path target, byte[] bytes) throws IOException {
    Files.createDirectories(target.getParent());
    java.nio.file.Path tmp = target.resolveSibling("." + target.getFileName() + ".part");
    Files.write(tmp, bytes);
    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * Downloads an unpublished snapshot's files (no manifest yet: shards, parents, stored vectors) for
   * verification; not its staging marker.
   */
  public void downloadShards(String id) throws IOException {
    String prefix = SnapshotLayout.snapshotKey(id);
    for (String name : storage().list(prefix)) {
      if (!name.equals(SnapshotLayout.STAGING)) {
        downloadEntry(prefix, name, local.snapshotDir(id).resolve(name));
      }
    }
  }

  /** An entry is a "directory" when something is listed under it (object stores have no empty ones). */
  private void downloadEntry(String prefix, String name, java.nio.file.Path target) throws IOException {
    List<String> children = storage().list(prefix + name + "/");
    if (children.isEmpty()) {
      download(prefix + name, target);
      return;
    }
    for (String child : children) {
      downloadEntry(prefix + name + "/", child, target.resolve(child));
    }
  }

}
