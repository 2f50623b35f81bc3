package dev.kiln.search;

import dev.kiln.config.ConfigException;

/**
 * Tuning of a {@link Searcher}. Immutable; derive variants with the {@code with…} methods.
 *
 * @param rrfK the reciprocal rank fusion constant: larger values flatten the advantage of top ranks
 * @param candidateDepth how many candidates hybrid search takes from each retriever before fusing
 *     (at least the requested {@code k} is always taken)
 */
public record SearchOptions(int rrfK, int candidateDepth) {
  /** The constant from Cormack, Clarke and Büttcher (2009), which most fusion systems keep. */
  public static final int DEFAULT_RRF_K = 60;
  public static final int DEFAULT_CANDIDATE_DEPTH = 100;

  public SearchOptions {
    if (rrfK < 0) {
      throw new ConfigException("rrf-k must be >= 0, was " + rrfK);
    }
    if (candidateDepth < 1) {
      throw new ConfigException("candidate-depth must be >= 1, was " + candidateDepth);
    }
  }

  public static SearchOptions defaults() {
    return new SearchOptions(DEFAULT_RRF_K, DEFAULT_CANDIDATE_DEPTH);
  }

  public SearchOptions withRrfK(int value) {
    return new SearchOptions(value, candidateDepth);
  }

  public SearchOptions withCandidateDepth(int value) {
    return new SearchOptions(rrfK, value);
  }
}
