package dev.kiln.search.http;

import dev.kiln.search.SearchOptions;
import dev.kiln.search.Searcher;
import dev.kiln.search.ShardSelection;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.Verification;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Fetches a snapshot from a {@link SnapshotSource} (a remote one downloads it into the local cache
 * first) and opens it as a lease with the options and shards every snapshot of a {@link
 * ReloadingSearcher} is opened with, so that the first open, a reload and a fallback open alike.
 */
final class SnapshotOpener {
  private final SnapshotSource source;
  private final SearchOptions options;
  private final ShardSelection shards;

  SnapshotOpener(SnapshotSource source, SearchOptions options, ShardSelection shards) {
    this.source = source;
    this.options = options;
    this.shards = shards;
  }

  /** Snapshot {@code id}, verified as {@code verify} says, with the owner's one reference. */
  ReloadingSearcher.Lease open(String id, Verification verify) {
    Path local = prepare(id);
    // The query model loads while the shards open and, on a swap, before the new snapshot takes queries.
    return new ReloadingSearcher.Lease(Searcher.builder().root(local).snapshot(id).options(options).verify(verify)
        .shards(shards).preloadQueryModel(true).build(), local);
  }

  private Path prepare(String id) {
    try {
      return source.prepare(id, shards);
    } catch (IOException e) {
      throw new SnapshotException("cannot fetch snapshot " + id + " from " + source + ": " + e.getMessage(), e);
    }
  }
}
