package dev.kiln.client;

import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import java.io.Closeable;
import java.util.List;

/**
 * Where the framework retrievers get their chunks: a snapshot searched in this JVM ({@link
 * KilnBackends#embedded}, {@link KilnBackends#open}) or a {@code kiln serve} over HTTP ({@link
 * KilnBackends#http}). Implementations are thread-safe; the same query gets the same hits from either
 * for the same snapshot.
 */
public interface KilnBackend extends Closeable {
  /**
   * The best {@code k} chunks for {@code query}, best first.
   *
   * @throws KilnClientException when the search is refused (a filter on a key the snapshot did not
   *     index for ranges, an unreachable server), with Kiln's reason
   */
  List<SearchHit> search(String query, SearchMode mode, int k, KilnFilter filter);

  /** Releases what the backend opened itself (a searcher it built); a caller's searcher stays open. */
  @Override
  void close();
}
