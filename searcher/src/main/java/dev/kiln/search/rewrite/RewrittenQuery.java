package dev.kiln.search.rewrite;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A query after rewriting.
 *
 * @param denseText the text the embedding model sees
 * @param bm25Terms analysed BM25 terms with their weights (a term's query weight, not its count)
 */
public record RewrittenQuery(String denseText, Map<String, Float> bm25Terms) {
  public RewrittenQuery {
    bm25Terms = Collections.unmodifiableMap(new LinkedHashMap<>(bm25Terms));
  }

  /** An unexpanded query: each term weighs as often as it occurs. */
  public static RewrittenQuery of(String text, Map<String, Integer> counts) {
    Map<String, Float> weights = new LinkedHashMap<>();
    counts.forEach((t, c) -> weights.put(t, c.floatValue()));
    return new RewrittenQuery(text, weights);
  }
}
