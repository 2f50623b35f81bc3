package dev.kiln.operators.fs;

import dev.kiln.internal.PausePoint;
import dev.kiln.model.ShardResult;
import dev.kiln.snapshot.LocalFiles;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SafePaths;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Where a writer subtask's Lucene and docstore files are written, from {@link
 * SnapshotsTarget#staging}: a local root is written in place; for a remote root ({@code s3://},
 * {@code hdfs://}) Lucene still needs a local disk, so the files are written under a temporary
 * directory of this subtask's and each finished directory is uploaded to its key under the root.
 */
public final class WriterStaging implements Closeable {
  private final String remoteRoot;
  private final Path temporary;
  private final SnapshotLayout layout;

  private WriterStaging(String remoteRoot, Path temporary, SnapshotLayout layout) {
    this.remoteRoot = remoteRoot;
    this.temporary = temporary;
    this.layout = layout;
  }

  /** Writes in place under a local root. */
  static WriterStaging inPlace(SnapshotLayout root) {
    return new WriterStaging(null, null, root);
  }

  /** Writes under {@code temporary} (removed on close) and uploads finished directories to {@code remoteRoot}. */
  static WriterStaging uploading(String remoteRoot, Path temporary) {
    return new WriterStaging(remoteRoot, temporary, new SnapshotLayout(temporary));
  }

  /** The layout the writers write under: the root itself, or the temporary directory. */
  public SnapshotLayout layout() {
    return layout;
  }

  /**
   * Where a finished local directory now lives: uploaded to {@code key} (a {@link SnapshotLayout}
   * key such as {@link SnapshotLayout#shardKey}) under a remote root, or the directory itself.
   */
  public String publish(Path directory, String key) throws IOException {
    if (temporary == null) {
      return directory.toString();
    }
    String remote = new org.apache.flink.core.fs.Path(remoteRoot, key.replaceAll("/+$", "")).toString();
    RemoteFiles.uploadDir(directory, remote);
    return remote;
  }

  /**
   * A finished shard's result as it lies once published: its own files uploaded (its files' new
   * place), or as it is in place. Files the result lists as references to an earlier snapshot
   * ({@link Manifest.FileEntry#snapshot}) are already in the root under their owner and are not
   * uploaded again: a rebuild uploads what it wrote, not the shard.
   */
  public ShardResult publish(ShardResult result, Path directory, String key) throws IOException {
    String remote = publish(result.files(), directory, key);
    return temporary == null ? result : result.at(remote);
  }

  /**
   * As {@link #publish(ShardResult, Path, String)} for a directory whose manifest entries are
   * {@code files} (names relative to {@code directory}; a docstore part's): uploads its own files, not
   * those referenced from an earlier snapshot, and returns where it now lives.
   */
  public String publish(List<Manifest.FileEntry> files, Path directory, String key) throws IOException {
    if (temporary == null) {
      return directory.toString();
    }
    String remote = new org.apache.flink.core.fs.Path(remoteRoot, key.replaceAll("/+$", "")).toString();
    for (Manifest.FileEntry f : files) {
      if (f.snapshot() == null) {
        RemoteFiles.upload(SafePaths.resolve(directory, "shard file", f.name()),
            new org.apache.flink.core.fs.Path(remote, f.name()));
        // Crash tests kill the build here: a shard's files partly uploaded, no manifest yet.
        PausePoint.reached("upload");
      }
    }
    return remote;
  }

  /** Bytes of {@code result}'s files this staging uploaded (its own files; none in place). */
  public long uploadedBytes(ShardResult result) {
    return uploadedBytes(result.files());
  }

  /** Bytes of {@code files} this staging uploads (their own files; none in place). */
  public long uploadedBytes(List<Manifest.FileEntry> files) {
    return temporary == null ? 0
        : files.stream().filter(f -> f.snapshot() == null).mapToLong(Manifest.FileEntry::size).sum();
  }

  /** Removes the temporary directory (a remote root's); never throws, so that it cannot mask a failure. */
  @Override
  public void close() {
    if (temporary == null) {
      return;
    }
    try {
      LocalFiles.deleteTree(temporary);
    } catch (IOException | RuntimeException e) {
      // a temporary directory left behind costs disk, not correctness
    }
  }
}
