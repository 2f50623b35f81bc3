package dev.kiln.cli;

import dev.kiln.snapshot.io.FlinkFileSystems;
import dev.kiln.snapshot.io.RemoteRoots;
import dev.kiln.snapshot.io.SnapshotMirror;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/** Turns a {@code --snapshots} argument into a local root the searcher can open. */
final class SnapshotRoots {
  private SnapshotRoots() {}

  /** A local root as is; a remote one ({@code s3://…}) downloaded, the snapshot {@code id} or CURRENT's. */
  static Path local(String root, String id) throws IOException {
    if (!FlinkFileSystems.isRemote(root)) {
      return Path.of(root);
    }
    FlinkFileSystems.initialize(Map.of());
    return new SnapshotMirror(root, RemoteRoots.localMirror(root)).localize(id);
  }
}
