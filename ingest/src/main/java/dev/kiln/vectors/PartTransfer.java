package dev.kiln.vectors;

import java.io.IOException;
import java.nio.file.Path;

/**
 * How stored-vector parts travel between the local disk, where they are written and read, and a
 * remote snapshots root ({@code s3://}, {@code hdfs://}). The build job's implementation goes through
 * Flink's file systems ({@code dev.kiln.operators.fs.FlinkPartTransfer}); {@link #LOCAL} is for
 * callers whose every location is a local path (tests, benchmarks).
 */
public interface PartTransfer {
  /** Whether {@code location} (a directory or a part) lies on a remote file system. */
  boolean isRemote(String location);

  /** Copies the remote part at {@code location} to the local file {@code local}. */
  void download(String location, Path local) throws IOException;

  /** Copies the local file {@code local} to {@code name} in the remote directory {@code dir}, replacing it. */
  void upload(Path local, String dir, String name) throws IOException;

  /** Writes {@code bytes} as {@code name} in the remote directory {@code dir}, replacing it. */
  void writeBytes(String dir, String name, byte[] bytes) throws IOException;

  /** Every location is a local path: nothing is ever transferred. */
  PartTransfer LOCAL = new PartTransfer() {
    @Override
    public boolean isRemote(String location) {
      return false;
    }

    @Override
    public void download(String location, Path local) {
      throw new UnsupportedOperationException("local parts only: " + location);
    }

    @Override
    public void upload(Path local, String dir, String name) {
      throw new UnsupportedOperationException("local parts only: " + dir);
    }

    @Override
    public void writeBytes(String dir, String name, byte[] bytes) {
      throw new UnsupportedOperationException("local parts only: " + dir);
    }
  };
}
