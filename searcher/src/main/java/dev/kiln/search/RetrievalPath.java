package dev.kiln.search;

import java.io.Closeable;

/**
 * One way of answering a query with ranked chunks: a snapshot ({@link Searcher}: its own dense, BM25
 * or hybrid chain), or several paths fused into one ({@link FederatedSearcher}). Anything that ranks
 * chunks for a {@link SearchRequest} — documents, tickets, a user's memory in another root — can be a
 * path; implementations are thread-safe.
 */
public interface RetrievalPath extends Closeable {
  /** What the path is called in results and logs (a snapshot id, a root). */
  String label();

  /** The path's best hits for the request, at most {@code request.k()}, best first. */
  SearchResponse search(SearchRequest request);

  /** Runs a query in the given mode and returns at most {@code k} chunks, best first. */
  default SearchResponse search(String query, SearchMode mode, int k) {
    return search(SearchRequest.of(query, mode, k));
  }
}
