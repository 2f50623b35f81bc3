package dev.kiln.search;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The answer to one query.
 *
 * @param snapshotId the snapshot that answered, so callers can tell which build they saw
 * @param mode how the query was matched
 * @param results the hits, best first
 */
public record SearchResponse(
    @JsonProperty("snapshot") String snapshotId,
    @JsonProperty("mode") SearchMode mode,
    @JsonProperty("results") List<SearchHit> results) {

  public SearchResponse {
    results = List.copyOf(results);
  }
}
