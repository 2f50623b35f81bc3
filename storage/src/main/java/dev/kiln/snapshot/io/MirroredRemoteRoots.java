package dev.kiln.snapshot.io;

import dev.kiln.snapshot.RemoteSnapshotRoots;
import dev.kiln.snapshot.ShardFilter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The searcher's way to a remote root (a {@link RemoteSnapshotRoots} service): the snapshot downloaded
 * and verified into the root's shared local mirror ({@link SnapshotMirror#of}), or a shard group's
 * serving files into a copy of the group's own ({@link RemoteRoots#groupMirror}).
 */
public final class MirroredRemoteRoots implements RemoteSnapshotRoots {
  @Override
  public Path localize(String remoteRoot, Map<String, String> settings, String id) throws IOException {
    return SnapshotMirror.of(remoteRoot, settings).localize(id);
  }

  @Override
  public Path localize(String remoteRoot, Map<String, String> settings, String id, ShardFilter shards)
      throws IOException {
    if (shards.all()) {
      return localize(remoteRoot, settings, id);
    }
    return new SnapshotMirror(RemoteStorages.open(remoteRoot, settings), remoteRoot,
        RemoteRoots.groupMirror(remoteRoot, shards)).localizeForServing(id, shards);
  }
}
