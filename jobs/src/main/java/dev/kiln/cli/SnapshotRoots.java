package dev.kiln.cli;

import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.FlinkFileSystems;
import dev.kiln.snapshot.io.RemoteRoots;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/** Turns a {@code --snapshots} argument into a local root the searcher can open. */
final class SnapshotRoots {
  private SnapshotRoots() {}

  /** A local root as is; a remote one ({@code s3://…}) downloaded, the snapshot {@code id} or CURRENT's. */
  static Path local(String root, String id) throws IOException {
    return local(root, id, Map.of());
  }

  /** As {@link #local(String, String)}, with file system settings ({@code s3.endpoint}, ...) over the environment. */
  static Path local(String root, String id, Map<String, String> settings) throws IOException {
    if (!FlinkFileSystems.isRemote(root)) {
      return Path.of(root);
    }
    FlinkFileSystems.initialize(settings);
    return new SnapshotMirror(RemoteStorages.open(root, settings), root, RemoteRoots.localMirror(root)).localize(id);
  }

  /** The store of a snapshots root: local, or remote through its storage (S3: conditional PUT). */
  static SnapshotStore store(String root, Map<String, String> settings) {
    if (!FlinkFileSystems.isRemote(root)) {
      return new SnapshotStore(Path.of(root));
    }
    FlinkFileSystems.initialize(settings);
    return RemoteStorages.store(root, settings);
  }
}
