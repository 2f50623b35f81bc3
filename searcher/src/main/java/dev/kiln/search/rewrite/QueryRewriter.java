package dev.kiln.search.rewrite;

/**
 * The query-rewriting stage of the chain: it turns the user's text into what the retrievers run.
 * Implementations must be thread-safe. An LLM-based rewriter (multi-query, HyDE) plugs in here; the
 * one shipped, {@link Rm3Rewriter}, needs no model.
 */
public interface QueryRewriter {

  /** Rewrites one query; {@code context} runs the first-pass retrieval a rewriter may want. */
  RewrittenQuery rewrite(String query, RewriteContext context);

  /** Leaves queries as they are. */
  QueryRewriter IDENTITY = (query, context) -> RewrittenQuery.of(query, context.analyze(query));
}
