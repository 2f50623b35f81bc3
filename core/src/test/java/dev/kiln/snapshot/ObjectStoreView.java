package dev.kiln.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A local root seen as an object store sees it: no file identities and no hard links of shared files,
 * so a format-2 reference is read at its owner's key — what S3 and HDFS roots do, without a server
 * (verification here, retention in the publish module's tests).
 */
public final class ObjectStoreView implements SnapshotStorage {
  private final LocalSnapshotStorage local;
  private final boolean versions;

  public ObjectStoreView(Path root) {
    this(root, false);
  }

  /**
   * @param versions report a version token with each size ({@link #stat}), as S3 and HDFS do: here
   *     the local file's identity, which changes whenever the file is rewritten or replaced
   */
  public ObjectStoreView(Path root, boolean versions) {
    this.local = new LocalSnapshotStorage(root);
    this.versions = versions;
  }

  @Override
  public ObjectStat stat(String key) throws IOException {
    if (!versions) {
      return new ObjectStat(size(key), null);
    }
    FileIdentity id = local.identity(key).orElseThrow();
    return new ObjectStat(id.size(), "key=" + id.fileKey() + ";mtime=" + id.modifiedNanos() + ";size=" + id.size());
  }

  @Override
  public Optional<byte[]> read(String key) throws IOException {
    return local.read(key);
  }

  @Override
  public <T> T locked(String key, LockedAction<T> action) throws IOException {
    return local.locked(key, action);
  }

  @Override
  public InputStream open(String key) throws IOException {
    return local.open(key);
  }

  @Override
  public long size(String key) throws IOException {
    return local.size(key);
  }

  @Override
  public boolean exists(String key) throws IOException {
    return local.exists(key);
  }

  @Override
  public void write(String key, byte[] data) throws IOException {
    local.write(key, data);
  }

  @Override
  public boolean compareAndSet(String key, byte[] expected, byte[] update) throws IOException {
    return local.compareAndSet(key, expected, update);
  }

  @Override
  public List<String> list(String prefix) throws IOException {
    return local.list(prefix);
  }

  @Override
  public void delete(String key) throws IOException {
    local.delete(key);
  }

  @Override
  public void deleteTree(String prefix) throws IOException {
    local.deleteTree(prefix);
  }

  @Override
  public long lastModified(String key) throws IOException {
    return local.lastModified(key);
  }
}
