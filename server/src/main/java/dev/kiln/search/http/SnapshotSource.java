package dev.kiln.search.http;

import dev.kiln.search.ShardSelection;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Where {@link ReloadingSearcher} finds the published snapshot and a local root it can open it from.
 * A local snapshots root is its own source; a remote one ({@code s3://}, {@code hdfs://}) downloads and
 * verifies the snapshot into a local cache first. Called from one thread at a time.
 */
public interface SnapshotSource {
  /** The id {@code CURRENT} names now; throws a {@link dev.kiln.snapshot.SnapshotException} when unreadable. */
  String currentId();

  /**
   * Makes the shards {@code shards} selects of snapshot {@code id} openable locally (a remote source
   * downloads and verifies those, and no others: a shard group's node holds its group only) and
   * returns the local snapshots root to open it from. Slow for a remote source: never called under a
   * lock that {@code /health} needs.
   */
  Path prepare(String id, ShardSelection shards) throws IOException;

  /**
   * The searcher now serves {@code serving}; {@code previous} was served before it (or null). A cache
   * may drop every other snapshot it holds.
   */
  default void swapped(String serving, String previous) {}

  /**
   * The snapshots root as it lies on this machine, or null for a remote source (whose local cache
   * holds only what it serves): what the web page lists and opens other snapshots from.
   */
  default Path localRoot() {
    return null;
  }

  /** A local snapshots root, opened where it lies. */
  static SnapshotSource local(Path root) {
    SnapshotStore store = new SnapshotStore(root);
    return new SnapshotSource() {
      @Override
      public String currentId() {
        return store.currentId();
      }

      @Override
      public Path prepare(String id, ShardSelection shards) {
        return root;
      }

      @Override
      public Path localRoot() {
        return root;
      }

      @Override
      public String toString() {
        return root.toString();
      }
    };
  }
}
