package dev.kiln.operators.fs;

import dev.kiln.index.store.FetchStats;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A base snapshot's files as a writer that continues it gets them, from {@link SnapshotsTarget#base}:
 * each call puts base shard (or docstore part) {@code shard} at {@code into}, the place under the
 * writer's staging layout where the base's directory belongs.
 */
public sealed interface BaseFiles extends Serializable permits BaseFiles.InPlace, RemoteBaseFiles {

  /** The base snapshot's id. */
  String baseId();

  /** Base shard {@code shard} at {@code into}; returns it. */
  Path fetchShard(int shard, Path into) throws IOException;

  /**
   * Base shard {@code shard} for a writer that continues it: in place under a local root ({@code into},
   * which must exist), or under a remote root read on demand, its fetched blocks cached under
   * {@code cache} and counted in {@code stats}.
   */
  BaseShard shard(int shard, Path into, Path cache, FetchStats stats) throws IOException;

  /**
   * Base docstore part {@code shard} for a writer that continues it, as {@link #shard} gives a shard:
   * in place under a local root ({@code into}), or read on demand from a remote root.
   */
  BaseShard parents(int shard, Path into, Path cache, FetchStats stats) throws IOException;

  /**
   * A base under a local root, which writers write in place: its directories already are where the
   * writer looks, so nothing moves; a missing one fails here, naming it.
   */
  record InPlace(String baseId) implements BaseFiles {
    private static final long serialVersionUID = 1L;

    @Override
    public Path fetchShard(int shard, Path into) throws IOException {
      return present(into, "shard " + shard);
    }

    @Override
    public BaseShard parents(int shard, Path into, Path cache, FetchStats stats) throws IOException {
      return new BaseShard.Local(present(into, "docstore part " + shard));
    }

    @Override
    public BaseShard shard(int shard, Path into, Path cache, FetchStats stats) throws IOException {
      return new BaseShard.Local(fetchShard(shard, into));
    }

    private Path present(Path dir, String what) throws IOException {
      if (!Files.isDirectory(dir)) {
        throw new IOException(what + " of base snapshot " + baseId + " is missing: " + dir);
      }
      return dir;
    }
  }
}
