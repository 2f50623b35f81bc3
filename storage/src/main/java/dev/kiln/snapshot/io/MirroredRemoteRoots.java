package dev.kiln.snapshot.io;

import dev.kiln.snapshot.RemoteSnapshotRoots;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The searcher's way to a remote root (a {@link RemoteSnapshotRoots} service): the snapshot downloaded
 * and verified into the root's shared local mirror ({@link SnapshotMirror#of}).
 */
public final class MirroredRemoteRoots implements RemoteSnapshotRoots {
  @Override
  public Path localize(String remoteRoot, Map<String, String> settings, String id) throws IOException {
    return SnapshotMirror.of(remoteRoot, settings).localize(id);
  }
}
