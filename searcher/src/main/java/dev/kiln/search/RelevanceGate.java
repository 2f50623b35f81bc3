package dev.kiln.search;

import java.util.ArrayList;
import java.util.List;

/**
 * Drops hits that are not worth handing to an LLM: those under an absolute score floor, and those
 * more than {@code maxDrop} below the top hit. Both compare the calibrated score
 * ({@link SearchHit#relevance()}): the cross-encoder's when reranking, else the dense similarity of
 * the chunk to the query, {@code (1 + cosine) / 2} as {@code --mode dense} prints it — the same scale
 * in every mode, so that in hybrid the top hit can fail the floor and the answer is "no relevant
 * context". (Fused hybrid scores are min-max normalised per query: the top hit always scores 1 and
 * could never fail.) A hit without a calibrated score is compared by its ranking score.
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
    List<String> refusals = refusals(hits);
    List<SearchHit> kept = new ArrayList<>(hits.size());
    for (int i = 0; i < hits.size(); i++) {
      if (refusals.get(i) == null) {
        kept.add(hits.get(i));
      }
    }
    return kept;
  }

  /**
   * For each hit (best first), why the gate drops it, or null where it keeps it: the one place the
   * gate decides, so that what {@link #apply} keeps and what an explanation says cannot differ.
   */
  public List<String> refusals(List<SearchHit> hits) {
    double top = Double.NEGATIVE_INFINITY;
    for (SearchHit h : hits) {
      top = Math.max(top, calibrated(h));
    }
    List<String> out = new ArrayList<>(hits.size());
    for (SearchHit h : hits) {
      double c = calibrated(h);
      if (!Double.isNaN(minScore) && !(c >= minScore)) {
        out.add("calibrated score " + c + " is under the floor " + minScore);
      } else if (!Double.isNaN(maxDrop) && !(top - c <= maxDrop)) {
        out.add("calibrated score " + c + " is more than " + maxDrop + " below the top hit's " + top);
      } else {
        out.add(null);
      }
    }
    return out;
  }

  private static double calibrated(SearchHit h) {
    return h.relevance() != null ? h.relevance() : h.score();
  }
}
