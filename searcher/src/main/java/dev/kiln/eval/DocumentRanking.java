package dev.kiln.eval;

import dev.kiln.search.SearchHit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a chunk ranking into a document ranking. Judgments are about documents while the searcher
 * ranks chunks, so chunk scores are folded per document ({@link Aggregation}); with {@code MAX} a
 * document sits at the rank of its first chunk in a best-first list.
 */
public final class DocumentRanking {
  private DocumentRanking() {}

  /** A document and its aggregated score. */
  public record ScoredDoc(String docId, double score) {}

  /** Distinct document ids in order of their best chunk, at most {@code limit} of them. */
  public static List<String> fromChunks(List<SearchHit> hits, int limit) {
    return aggregate(hits, limit, Aggregation.MAX).stream().map(ScoredDoc::docId).toList();
  }

  /**
   * Documents by aggregated score, best first, at most {@code limit}. Ties keep the order in which
   * the documents first appeared, so MAX reproduces the chunk ranking exactly.
   */
  public static List<ScoredDoc> aggregate(List<SearchHit> hits, int limit, Aggregation aggregation) {
    Map<String, double[]> byDoc = new LinkedHashMap<>();
    for (SearchHit hit : hits) {
      double[] acc = byDoc.get(hit.docId());
      if (acc == null) {
        byDoc.put(hit.docId(), new double[] {hit.score()});
      } else if (aggregation == Aggregation.SUM) {
        acc[0] += hit.score();
      } else {
        acc[0] = Math.max(acc[0], hit.score());
      }
    }
    List<ScoredDoc> docs = new ArrayList<>(byDoc.size());
    byDoc.forEach((id, acc) -> docs.add(new ScoredDoc(id, acc[0])));
    if (aggregation == Aggregation.SUM) {
      // Stable sort: equal sums keep first-appearance order.
      docs.sort(Comparator.comparingDouble(ScoredDoc::score).reversed());
    }
    return docs.size() > limit ? new ArrayList<>(docs.subList(0, limit)) : docs;
  }
}
