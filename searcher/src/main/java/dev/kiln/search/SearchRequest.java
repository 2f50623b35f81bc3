package dev.kiln.search;

import dev.kiln.search.filter.MetadataFilter;
import java.util.Objects;

/**
 * One query as the API, the CLI and the HTTP service pass it to {@link Searcher#search(SearchRequest)}.
 *
 * @param query the user's text
 * @param mode how it is matched
 * @param k the most chunks to return
 * @param filter metadata conditions every returned chunk meets
 */
public record SearchRequest(String query, SearchMode mode, int k, MetadataFilter filter) {
  /** Longest query accepted, in UTF-8 bytes: a longer "query" is a pasted document or an attack. */
  public static final int MAX_QUERY_BYTES = 8 * 1024;
  public static final int MAX_K = 1000;

  public SearchRequest {
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(mode, "mode");
    filter = filter == null ? MetadataFilter.none() : filter;
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1, was " + k);
    }
  }

  public static SearchRequest of(String query, SearchMode mode, int k) {
    return new SearchRequest(query, mode, k, MetadataFilter.none());
  }
}
