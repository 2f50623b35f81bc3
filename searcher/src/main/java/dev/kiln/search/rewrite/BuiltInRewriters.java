package dev.kiln.search.rewrite;

/** The rewriters Kiln ships, as {@link QueryRewriterProvider}s (listed in META-INF/services). */
public final class BuiltInRewriters {
  private BuiltInRewriters() {}

  /** {@code none}: the query as typed. */
  public static final class None implements QueryRewriterProvider {
    @Override
    public String name() {
      return "none";
    }

    @Override
    public String description() {
      return "the query as typed";
    }

    @Override
    public QueryRewriter create() {
      return QueryRewriter.IDENTITY;
    }
  }

  /** {@code rm3}: what {@code --prf} selects. */
  public static final class Rm3 implements QueryRewriterProvider {
    @Override
    public String name() {
      return "rm3";
    }

    @Override
    public String description() {
      return "RM3 pseudo-relevance feedback on the BM25 terms (Anserini's defaults)";
    }

    @Override
    public QueryRewriter create() {
      return new Rm3Rewriter();
    }
  }

  /** {@code keywords}: {@link KeywordExpansionRewriter}. */
  public static final class Keywords implements QueryRewriterProvider {
    @Override
    public String name() {
      return "keywords";
    }

    @Override
    public String description() {
      return "multi-query keyword expansion: adds the rare terms the first pass's chunks share with the query";
    }

    @Override
    public QueryRewriter create() {
      return new KeywordExpansionRewriter();
    }
  }
}
