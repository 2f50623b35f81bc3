package dev.kiln.cli;

import dev.kiln.search.ShardSelection;
import dev.kiln.search.http.SnapshotSource;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.io.RemoteRoots;
import dev.kiln.snapshot.io.SnapshotMirror;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * What {@code kiln serve} follows on a remote root: {@code CURRENT} read through the root's storage
 * (size-capped), each new snapshot downloaded into this process's cache with every file checked against
 * the manifest's size and SHA-256 on arrival (files already there and intact are kept). A shard group
 * ({@code --shards}) fetches only its shards' files: a node's disk holds its group's share of a
 * snapshot, not the whole of it. The cache holds the served snapshot, the one before it and the one
 * being fetched; older copies are removed.
 */
final class RemoteSnapshotSource implements SnapshotSource {
  private final SnapshotMirror mirror;
  private final String root;
  /** Held for the life of the process: an unreachable channel would be closed by GC, dropping the claim. */
  @SuppressWarnings("unused")
  private final RemoteRoots.ServeCache claim;
  private String serving;
  private String previous;

  RemoteSnapshotSource(SnapshotMirror mirror, String root, RemoteRoots.ServeCache claim) {
    this.mirror = mirror;
    this.root = root;
    this.claim = claim;
  }

  @Override
  public String currentId() {
    String id = mirror.remoteCurrent();
    if (id == null) {
      throw new SnapshotException("no published snapshot under " + root + " (no CURRENT)");
    }
    return id;
  }

  @Override
  public Path prepare(String id, ShardSelection shards) throws IOException {
    // Before downloading: a snapshot that failed (or was superseded) while being fetched goes now.
    mirror.retainOnly(keep(id));
    return mirror.localizeForServing(id, shards);
  }

  @Override
  public void swapped(String now, String before) {
    serving = now;
    previous = before;
    try {
      mirror.retainOnly(keep(null));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot tidy the local copy of " + root, e);
    }
  }

  private Set<String> keep(String fetching) {
    Set<String> keep = new HashSet<>();
    for (String id : new String[] {serving, previous, fetching}) {
      if (id != null) {
        keep.add(id);
      }
    }
    return keep;
  }

  @Override
  public String toString() {
    return root;
  }
}
