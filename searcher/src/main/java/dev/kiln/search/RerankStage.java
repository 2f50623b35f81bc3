package dev.kiln.search;

import dev.kiln.search.rerank.Reranker;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The rerank stage: a cross-encoder rescores the first stage's candidates (retrieval fetches {@link
 * SearchOptions#rerankDepth()} of them, at least k) and the best k are kept. Its score is the
 * calibrated one the relevance gate compares. Public for a router, which reranks the candidates it
 * merged from shard groups with this same stage, so that its answer is one server's.
 */
public final class RerankStage {
  private final Reranker reranker;
  private final int depth;

  public RerankStage(Reranker reranker, int depth) {
    this.reranker = reranker;
    this.depth = depth;
  }

  /** Candidates the first stage retrieves for a request of {@code k}. */
  public int candidates(int k) {
    return Math.max(k, depth);
  }

  /** The best {@code k} of {@code candidates} by the cross-encoder's score for {@code query}, each with it. */
  public List<SearchHit> apply(String query, List<SearchHit> candidates, int k) {
    if (candidates.isEmpty()) {
      return candidates;
    }
    float[] scores = reranker.score(query, candidates.stream().map(SearchHit::text).toList());
    List<SearchHit> rescored = new ArrayList<>(candidates.size());
    for (int i = 0; i < scores.length; i++) {
      rescored.add(candidates.get(i).withScore(scores[i]).withRelevance(scores[i]));
    }
    rescored.sort(Comparator.comparingDouble(SearchHit::score).reversed()
        .thenComparing(SearchHit::chunkId));
    return rescored.size() > k ? List.copyOf(rescored.subList(0, k)) : rescored;
  }
}
