package dev.kiln.search.rewrite;

/**
 * A HyDE-shaped rewriter for tests, found by {@link QueryRewriters} through this module's test
 * {@code META-INF/services}: it answers every query with one fixed passage, as an LLM writing a
 * hypothetical answer would, so a test can tell whether dense search embedded the rewrite.
 */
public final class PassageTestRewriter implements QueryRewriterProvider {
  public static final String NAME = "test-passage";
  public static final String PASSAGE = "Blue whales feed on krill in cold oceans.";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "answers every query with one fixed passage (tests)";
  }

  @Override
  public QueryRewriter create() {
    return (query, context) -> RewrittenQuery.passage(PASSAGE, context.analyze(query));
  }
}
