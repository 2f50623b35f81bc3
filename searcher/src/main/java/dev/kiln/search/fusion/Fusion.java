package dev.kiln.search.fusion;

import java.util.List;

/**
 * Combines several rankings of the same kind of items (for example the dense and the BM25 result
 * of one query) into one. Implementations must be stateless and thread-safe, and must break ties
 * deterministically so that the same inputs always give the same order.
 */
public interface Fusion {

  /**
   * Fuses rankings into one.
   *
   * @param rankings each list ordered best first; an id may be missing from some lists
   * @param k the most items to return
   * @return at most {@code k} distinct ids with their fused scores, best first
   */
  List<ScoredId> fuse(List<List<ScoredId>> rankings, int k);
}
