package dev.kiln.search.fusion;

import java.util.Objects;

/**
 * An item of a ranking: an id and the score its retriever (or a fusion) gave it.
 *
 * @param id the item's id; fusion joins rankings on it
 * @param score the score; rank-based fusions ignore it, score-based ones normalise it
 */
public record ScoredId(String id, double score) {
  public ScoredId {
    Objects.requireNonNull(id, "id");
  }
}
