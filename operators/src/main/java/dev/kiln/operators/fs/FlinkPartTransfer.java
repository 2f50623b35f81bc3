package dev.kiln.operators.fs;

import dev.kiln.vectors.PartTransfer;
import java.io.IOException;
import org.apache.flink.core.fs.Path;

/** Stored-vector parts to and from a remote snapshots root through Flink's file systems ({@link RemoteFiles}). */
public final class FlinkPartTransfer implements PartTransfer {
  public static final FlinkPartTransfer INSTANCE = new FlinkPartTransfer();

  private FlinkPartTransfer() {}

  @Override
  public boolean isRemote(String location) {
    return FlinkFileSystems.isRemote(location);
  }

  @Override
  public void download(String location, java.nio.file.Path local) throws IOException {
    RemoteFiles.download(new Path(location), local);
  }

  @Override
  public void upload(java.nio.file.Path local, String dir, String name) throws IOException {
    RemoteFiles.upload(local, new Path(dir, name));
  }

  @Override
  public void writeBytes(String dir, String name, byte[] bytes) throws IOException {
    RemoteFiles.writeBytes(new Path(dir, name), bytes);
  }
}
