package dev.kiln.publish;

import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.SnapshotStorage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A local directory seen as an object store sees a root: a file a manifest references lives only at
 * its owner's key ({@link SnapshotStorage#linksSharedFiles} false) and no object has a file identity.
 * The retention rules of S3 and HDFS roots, tested without their servers (the ITCases run them there).
 */
final class ObjectStoreView implements SnapshotStorage {
  private final LocalSnapshotStorage disk;

  ObjectStoreView(Path root) {
    this.disk = new LocalSnapshotStorage(root);
  }

  @Override
  public Optional<byte[]> read(String key) throws IOException {
    return disk.read(key);
  }

  @Override
  public <T> T locked(String key, LockedAction<T> action) throws IOException {
    return disk.locked(key, action);
  }

  @Override
  public InputStream open(String key) throws IOException {
    return disk.open(key);
  }

  @Override
  public long size(String key) throws IOException {
    return disk.size(key);
  }

  @Override
  public boolean exists(String key) throws IOException {
    return disk.exists(key);
  }

  @Override
  public void write(String key, byte[] data) throws IOException {
    disk.write(key, data);
  }

  @Override
  public boolean compareAndSet(String key, byte[] expected, byte[] update) throws IOException {
    return disk.compareAndSet(key, expected, update);
  }

  @Override
  public List<String> list(String prefix) throws IOException {
    return disk.list(prefix);
  }

  @Override
  public void delete(String key) throws IOException {
    disk.delete(key);
  }

  @Override
  public void deleteTree(String prefix) throws IOException {
    disk.deleteTree(prefix);
  }

  @Override
  public long lastModified(String key) throws IOException {
    return disk.lastModified(key);
  }
}
