package dev.kiln.snapshot.io;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A snapshots root on a remote file system, seen through a local copy: Lucene needs random access
 * to its files, so a snapshot is downloaded (files already present with the listed size are kept)
 * into a local root with the same layout, and opened from there. The searcher then verifies every
 * file's SHA-256 as it does for a local root.
 */
public final class SnapshotMirror {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotMirror.class);

  private final String remoteRoot;
  private final SnapshotLayout local;

  public SnapshotMirror(String remoteRoot, java.nio.file.Path localRoot) {
    this.remoteRoot = remoteRoot;
    this.local = new SnapshotLayout(localRoot);
  }

  public SnapshotLayout local() {
    return local;
  }

  public Path remote(String relative) {
    return new Path(remoteRoot, relative);
  }

  public Path remoteSnapshotDir(String id) {
    return remote(SnapshotLayout.SNAPSHOTS_DIR + "/" + id);
  }

  /** The id the remote {@code CURRENT} names, or {@code null} when nothing was published. */
  public String remoteCurrent() throws IOException {
    String s = RemoteFiles.readString(remote(SnapshotLayout.CURRENT));
    if (s == null) {
      return null;
    }
    String id = s.trim();
    if (!SnapshotLayout.isSnapshotId(id)) {
      throw new SnapshotException("remote CURRENT of " + remoteRoot + " holds no snapshot id: '" + id + "'");
    }
    return id;
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
    java.nio.file.Path manifestFile = local.manifest(snapshot);
    RemoteFiles.download(remote(SnapshotLayout.SNAPSHOTS_DIR + "/" + snapshot + "/" + SnapshotLayout.MANIFEST),
        manifestFile);
    Manifest m = SnapshotStore.json().readValue(manifestFile.toFile(), Manifest.class);
    int fetched = 0;
    for (Manifest.ShardEntry shard : m.shards()) {
      fetched += fetch(snapshot, shard.directory(), shard.files());
    }
    if (m.embeddings() != null) {
      fetched += fetch(snapshot, m.embeddings().directory(), m.embeddings().files());
    }
    Files.writeString(local.current(), snapshot + "\n", StandardCharsets.UTF_8);
    LOG.info("snapshot {} of {}: {} files downloaded to {}", snapshot, remoteRoot, fetched, local.root());
    return local.root();
  }

  private int fetch(String snapshot, String directory, java.util.List<Manifest.FileEntry> files) throws IOException {
    int fetched = 0;
    for (Manifest.FileEntry f : files) {
      java.nio.file.Path target = local.snapshotDir(snapshot).resolve(directory).resolve(f.name());
      if (Files.isRegularFile(target) && Files.size(target) == f.size()) {
        continue;
      }
      RemoteFiles.download(remote(SnapshotLayout.SNAPSHOTS_DIR + "/" + snapshot + "/" + directory
          + "/" + f.name()), target);
      fetched++;
    }
    return fetched;
  }

  /** Downloads an unpublished snapshot's shard directories (no manifest yet) for verification. */
  public void downloadShards(String id) throws IOException {
    RemoteFiles.downloadDir(remoteSnapshotDir(id), local.snapshotDir(id));
  }

  /** Uploads the locally written manifest, then (when {@code publish}) replaces the remote CURRENT. */
  public void publish(String id, boolean publish) throws IOException {
    // Stored vectors are written by the embed stage next to the local mirror's shards: upload them
    // before the manifest, which must only name files that are already there.
    Manifest m = SnapshotStore.json().readValue(local.manifest(id).toFile(), Manifest.class);
    if (m.embeddings() != null) {
      for (Manifest.FileEntry f : m.embeddings().files()) {
        String rel = m.embeddings().directory() + "/" + f.name();
        RemoteFiles.upload(local.snapshotDir(id).resolve(rel),
            remote(SnapshotLayout.SNAPSHOTS_DIR + "/" + id + "/" + rel));
      }
    }
    RemoteFiles.upload(local.manifest(id),
        remote(SnapshotLayout.SNAPSHOTS_DIR + "/" + id + "/" + SnapshotLayout.MANIFEST));
    if (publish) {
      RemoteFiles.writeBytes(remote(SnapshotLayout.CURRENT), (id + "\n").getBytes(StandardCharsets.UTF_8));
    }
  }
}
