package dev.kiln.cli;

import dev.kiln.search.http.SnapshotSource;
import dev.kiln.snapshot.io.RemoteRoots;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * What {@code kiln serve --snapshots s3://…} follows ({@link RemoteSnapshotSource}), for tests that run
 * a {@code ReloadingSearcher} in process: the remote root through its storage with {@code settings},
 * downloaded and verified into {@code cache}.
 */
public final class ServedRemoteRoot {
  private ServedRemoteRoot() {}

  public static SnapshotSource source(String root, Map<String, String> settings, Path cache) throws IOException {
    return new RemoteSnapshotSource(new SnapshotMirror(RemoteStorages.open(root, settings), root, cache), root,
        RemoteRoots.claimServeCache(root));
  }
}
