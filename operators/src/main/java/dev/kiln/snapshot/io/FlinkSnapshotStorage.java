package dev.kiln.snapshot.io;

import dev.kiln.snapshot.SnapshotStorage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * {@link SnapshotStorage} on any other Flink file system ({@code hdfs://}, ...) for roots that
 * {@link S3SnapshotStorage} does not serve. Flink's API has no conditional write, so compare-and-set
 * is the documented fallback: read and compare just before an unconditional write; the publisher
 * reads back afterwards and reports a lost race.
 */
public final class FlinkSnapshotStorage implements SnapshotStorage {
  private final String root;

  public FlinkSnapshotStorage(String root) {
    this.root = root.replaceAll("/+$", "");
  }

  private Path path(String key) {
    if (key.startsWith("/") || key.contains("..")) {
      throw new IllegalArgumentException("key escapes the snapshots root: " + key);
    }
    return new Path(root + "/" + key.replaceAll("/+$", ""));
  }

  private static FileSystem fs(Path p) throws IOException {
    return p.getFileSystem();
  }

  @Override
  public Optional<byte[]> read(String key) throws IOException {
    Path p = path(key);
    if (!fs(p).exists(p)) {
      return Optional.empty();
    }
    try (InputStream in = fs(p).open(p)) {
      return Optional.of(in.readAllBytes());
    }
  }

  @Override
  public InputStream open(String key) throws IOException {
    Path p = path(key);
    if (!fs(p).exists(p)) {
      throw new NoSuchFileException(p.toString());
    }
    return fs(p).open(p);
  }

  @Override
  public long size(String key) throws IOException {
    Path p = path(key);
    if (!fs(p).exists(p)) {
      throw new NoSuchFileException(p.toString());
    }
    return fs(p).getFileStatus(p).getLen();
  }

  @Override
  public boolean exists(String key) throws IOException {
    Path p = path(key);
    return fs(p).exists(p);
  }

  @Override
  public void write(String key, byte[] data) throws IOException {
    RemoteFiles.writeBytes(path(key), data);
  }

  @Override
  public synchronized boolean compareAndSet(String key, byte[] expected, byte[] update) throws IOException {
    if (!Arrays.equals(read(key).orElse(null), expected)) {
      return false;
    }
    write(key, update);
    return true;
  }

  @Override
  public List<String> list(String dir) throws IOException {
    Path p = path(dir);
    // A file is not a directory: listing one must not return the file itself (as HDFS would).
    if (!fs(p).exists(p) || !fs(p).getFileStatus(p).isDir()) {
      return List.of();
    }
    FileStatus[] st = fs(p).listStatus(p);
    return st == null ? List.of() : Arrays.stream(st).map(s -> s.getPath().getName()).sorted().toList();
  }

  @Override
  public void delete(String key) throws IOException {
    Path p = path(key);
    if (fs(p).exists(p)) {
      fs(p).delete(p, false);
    }
  }

  @Override
  public void deleteTree(String dir) throws IOException {
    RemoteFiles.deleteRecursively(path(dir));
  }

  @Override
  public long lastModified(String key) throws IOException {
    Path p = path(key);
    return fs(p).exists(p) ? fs(p).getFileStatus(p).getModificationTime() : -1;
  }
}
