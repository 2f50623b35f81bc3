package dev.kiln.search;

import java.util.ArrayList;
import java.util.List;

/**
 * Drops hits that are not worth handing to an LLM: those under an absolute score floor, and those
 * more than {@code maxDrop} below the top hit's score. Both are in the final stage's score units
 * (the cross-encoder's when reranking, else the fusion's or retriever's), so tune them per mode.
 * Giving the model nothing, with a reason, beats giving it filler it will try to use.
 *
 * @param minScore the floor, or NaN for none
 * @param maxDrop the largest allowed distance from the top score, or NaN for none
 */
public record RelevanceGate(double minScore, double maxDrop) {
  public static final RelevanceGate OFF = new RelevanceGate(Double.NaN, Double.NaN);

  public boolean isOff() {
    return Double.isNaN(minScore) && Double.isNaN(maxDrop);
  }

  /** The hits (best first) that pass, in order. */
  public List<SearchHit> apply(List<SearchHit> hits) {
    if (isOff() || hits.isEmpty()) {
      return hits;
    }
    double top = hits.get(0).score();
    List<SearchHit> kept = new ArrayList<>(hits.size());
    for (SearchHit h : hits) {
      boolean floor = Double.isNaN(minScore) || h.score() >= minScore;
      boolean drop = Double.isNaN(maxDrop) || top - h.score() <= maxDrop;
      if (floor && drop) {
        kept.add(h);
      }
    }
    return kept;
  }
}
