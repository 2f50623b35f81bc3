package dev.kiln.search;

import dev.kiln.search.rewrite.RewrittenQuery;
import java.util.Map;
import java.util.Objects;

/**
 * A query as retrievers read it: the user's text, what the rewrite stage made of it (BM25 terms and
 * the text to embed), and its embedding under the snapshot's model when the retriever needs one.
 *
 * @param text the user's query as given (lexical feedback expands this, not a rewritten form)
 * @param rewritten the query rewrite stage's output; {@link #unrewritten} when it did not run
 * @param vector the embedding of {@code rewritten.denseText()}, or null when the retriever needs none
 * @param within top-level doc ids a retriever that reads terms may score, and no others (a feedback
 *     pass re-scoring a first pass's candidates, {@code --prf-scope candidates}); null: the whole
 *     snapshot
 */
public record RetrieverQuery(String text, RewrittenQuery rewritten, float[] vector, int[] within) {
  public RetrieverQuery {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(rewritten, "rewritten");
  }

  /** A query over the whole snapshot. */
  public RetrieverQuery(String text, RewrittenQuery rewritten, float[] vector) {
    this(text, rewritten, vector, null);
  }

  /**
   * A caller's embedding of the query text, usable only while the rewrite left that text as it was (and
   * did not make it a passage); null otherwise, and when there is none.
   */
  float[] reusable(float[] textVector) {
    return textVector != null && !rewritten.densePassage() && rewritten.denseText().equals(text) ? textVector : null;
  }

  /** What a retriever that reads no terms gets: the text itself, no BM25 terms. */
  public static RewrittenQuery unrewritten(String text) {
    return new RewrittenQuery(text, Map.of());
  }
}
