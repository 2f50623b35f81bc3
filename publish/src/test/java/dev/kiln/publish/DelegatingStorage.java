package dev.kiln.publish;

import dev.kiln.snapshot.SnapshotStorage;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;

/** A storage passing everything to a real one: the race tests' storages change one or two calls of it. */
class DelegatingStorage implements SnapshotStorage {
  final SnapshotStorage delegate;

  DelegatingStorage(SnapshotStorage delegate) {
    this.delegate = delegate;
  }

  @Override
  public void write(String key, byte[] data) throws IOException {
    delegate.write(key, data);
  }

  @Override
  public Optional<byte[]> read(String key) throws IOException {
    return delegate.read(key);
  }

  @Override
  public <T> T locked(String key, LockedAction<T> action) throws IOException {
    return delegate.locked(key, action);
  }

  @Override
  public InputStream open(String key) throws IOException {
    return delegate.open(key);
  }

  @Override
  public long size(String key) throws IOException {
    return delegate.size(key);
  }

  @Override
  public boolean exists(String key) throws IOException {
    return delegate.exists(key);
  }

  @Override
  public boolean compareAndSet(String key, byte[] expected, byte[] update) throws IOException {
    return delegate.compareAndSet(key, expected, update);
  }

  @Override
  public List<String> list(String prefix) throws IOException {
    return delegate.list(prefix);
  }

  @Override
  public void delete(String key) throws IOException {
    delegate.delete(key);
  }

  @Override
  public void deleteTree(String prefix) throws IOException {
    delegate.deleteTree(prefix);
  }

  @Override
  public long lastModified(String key) throws IOException {
    return delegate.lastModified(key);
  }
}
