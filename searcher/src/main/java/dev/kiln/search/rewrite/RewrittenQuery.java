package dev.kiln.search.rewrite;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A query after rewriting.
 *
 * @param denseText the text the embedding model sees
 * @param bm25Terms analysed BM25 terms with their weights (a term's query weight, not its count)
 * @param densePassage whether {@code denseText} is passage-like text (a hypothetical answer, as HyDE
 *     writes) rather than a query: it is then embedded as the snapshot's chunks were, with the model's
 *     passage prefix instead of its query prefix, so that it lands where answers lie
 */
public record RewrittenQuery(String denseText, Map<String, Float> bm25Terms, boolean densePassage) {
  public RewrittenQuery {
    bm25Terms = Collections.unmodifiableMap(new LinkedHashMap<>(bm25Terms));
  }

  /** A rewrite whose dense text is still a query. */
  public RewrittenQuery(String denseText, Map<String, Float> bm25Terms) {
    this(denseText, bm25Terms, false);
  }

  /** An unexpanded query: each term weighs as often as it occurs. */
  public static RewrittenQuery of(String text, Map<String, Integer> counts) {
    return new RewrittenQuery(text, weights(counts));
  }

  /** A rewrite to passage text (HyDE): embedded as a passage; BM25 reads {@code counts}. */
  public static RewrittenQuery passage(String passage, Map<String, Integer> counts) {
    return new RewrittenQuery(passage, weights(counts), true);
  }

  private static Map<String, Float> weights(Map<String, Integer> counts) {
    Map<String, Float> weights = new LinkedHashMap<>();
    counts.forEach((t, c) -> weights.put(t, c.floatValue()));
    return weights;
  }
}
