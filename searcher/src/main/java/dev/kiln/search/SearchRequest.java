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
 * @param options retrieval options this request sets over the searcher's ({@link RequestOptions#NONE}: none)
 */
public record SearchRequest(String query, SearchMode mode, int k, MetadataFilter filter, RequestOptions options) {
  /** Longest query accepted, in UTF-8 bytes: a longer "query" is a pasted document or an attack. */
  public static final int MAX_QUERY_BYTES = 8 * 1024;
  public static final int MAX_K = 1000;

  public SearchRequest {
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(mode, "mode");
    filter = filter == null ? MetadataFilter.none() : filter;
    options = options == null ? RequestOptions.NONE : options;
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1, was " + k);
    }
  }

  /** A request with the searcher's own retrieval options. */
  public SearchRequest(String query, SearchMode mode, int k, MetadataFilter filter) {
    this(query, mode, k, filter, RequestOptions.NONE);
  }

  /** This request under another filter, its options kept. */
  public SearchRequest withFilter(MetadataFilter value) {
    return new SearchRequest(query, mode, k, value, options);
  }

  /** This request with other retrieval options. */
  public SearchRequest withOptions(RequestOptions value) {
    return new SearchRequest(query, mode, k, filter, value);
  }

  public static SearchRequest of(String query, SearchMode mode, int k) {
    return new SearchRequest(query, mode, k, MetadataFilter.none());
  }
}
