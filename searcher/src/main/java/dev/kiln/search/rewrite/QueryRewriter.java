package dev.kiln.search.rewrite;

/**
 * The query-rewriting stage of the chain: it turns the user's text into what the retrievers run.
 * Implementations must be thread-safe. An LLM-based rewriter (multi-query, HyDE) plugs in here, found
 * by name through {@link QueryRewriterProvider}; those shipped need no model.
 */
public interface QueryRewriter {

  /** Rewrites one query; {@code context} runs the first-pass retrieval a rewriter may want. */
  RewrittenQuery rewrite(String query, RewriteContext context);

  /**
   * Whether this rewriter may change the text the dense side embeds. When it may, dense search runs it
   * too (its {@link RewrittenQuery#denseText()} is embedded); when it only reweighs BM25 terms, dense
   * search skips it and its first pass.
   */
  default boolean rewritesDenseText() {
    return true;
  }

  /** Leaves queries as they are. */
  QueryRewriter IDENTITY = new QueryRewriter() {
    @Override
    public RewrittenQuery rewrite(String query, RewriteContext context) {
      return RewrittenQuery.of(query, context.analyze(query));
    }

    @Override
    public boolean rewritesDenseText() {
      return false;
    }
  };
}
