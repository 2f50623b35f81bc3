package dev.kiln.search;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The answer to one query.
 *
 * @param snapshotId the snapshot that answered, so callers can tell which build they saw
 * @param mode how the query was matched
 * @param results the hits, best first
 * @param reason why {@code results} is empty ({@value #NO_RELEVANT_CONTEXT}), else {@code null}
 */
public record SearchResponse(
    @JsonProperty("snapshot") String snapshotId,
    @JsonProperty("mode") SearchMode mode,
    @JsonProperty("results") List<SearchHit> results,
    @JsonProperty("reason") @JsonInclude(JsonInclude.Include.NON_NULL) String reason) {
  /** The reason given when nothing retrieved passes the relevance gates (or nothing matched). */
  public static final String NO_RELEVANT_CONTEXT = "no relevant context";

  public SearchResponse {
    results = List.copyOf(results);
  }

  public SearchResponse(String snapshotId, SearchMode mode, List<SearchHit> results) {
    this(snapshotId, mode, results, results.isEmpty() ? NO_RELEVANT_CONTEXT : null);
  }
}
