package dev.kiln.eval;

import dev.kiln.search.SearchHit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns a chunk ranking into a document ranking. Judgments are about documents while the searcher
 * ranks chunks, so a document takes the score of its best chunk (MaxP); in a best-first list that
 * is the rank of its first chunk.
 */
public final class DocumentRanking {
  private DocumentRanking() {}

  /** Distinct document ids in order of their best chunk, at most {@code limit} of them. */
  public static List<String> fromChunks(List<SearchHit> hits, int limit) {
    Set<String> docs = new LinkedHashSet<>();
    for (SearchHit hit : hits) {
      if (docs.size() == limit) {
        break;
      }
      docs.add(hit.docId());
    }
    return new ArrayList<>(docs);
  }
}
