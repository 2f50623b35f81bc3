package dev.kiln.search;

import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.LexicalFeedback;

/**
 * Retrieval options one request sets over the searcher's own ({@link SearchOptions}): each component
 * null leaves the searcher's value. Carried by {@link SearchRequest#options()}; {@link #NONE} changes
 * nothing and costs nothing. Values are checked as {@link SearchOptions} checks them (a {@link
 * SettingException} names the setting); a service bounds them further by its own limits.
 *
 * @param ef HNSW candidates per graph walk ({@link SearchOptions#ef()})
 * @param fusion how hybrid search fuses ({@link SearchOptions#fusion()})
 * @param alpha the dense side's blend weight ({@link SearchOptions#alpha()})
 * @param denseDepth hybrid's dense candidates ({@link SearchOptions#denseDepth()})
 * @param bm25Depth hybrid's BM25 candidates ({@link SearchOptions#bm25Depth()})
 * @param minScore relevance gate floor ({@link SearchOptions#minScore()}; NaN switches it off)
 * @param maxDrop relevance gate drop ({@link SearchOptions#maxDrop()}; NaN switches it off)
 * @param rerank false skips the searcher's reranker; true needs one configured
 * @param rerankDepth candidates the reranker rescores ({@link SearchOptions#rerankDepth()})
 * @param feedback false switches every pseudo-relevance feedback pass off (dense, hybrid-lexical and
 *     {@code --prf}); true switches hybrid's dense and lexical feedback on, at the searcher's settings
 *     or Kiln's defaults where the searcher has it off
 * @param rewriter a query rewriter by name ({@link dev.kiln.search.rewrite.QueryRewriters})
 */
public record RequestOptions(Integer ef, FusionMethod fusion, Double alpha, Integer denseDepth, Integer bm25Depth,
    Double minScore, Double maxDrop, Boolean rerank, Integer rerankDepth, Boolean feedback, String rewriter) {

  /** Every option the searcher's own. */
  public static final RequestOptions NONE = new RequestOptions(null, null, null, null, null, null, null, null,
      null, null, null);

  /** Whether every option is left to the searcher (such a request runs the searcher's prepared chain). */
  public boolean isEmpty() {
    return equals(NONE);
  }

  /** A builder starting from no overrides. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * {@code base} with this request's values in place of its own, checked; rerank and the rewriter,
   * which need the searcher's objects, are the searcher's to apply.
   *
   * @throws SettingException naming the first value out of its range
   */
  public SearchOptions applyTo(SearchOptions base) {
    SearchOptions.Builder b = base.toBuilder();
    if (ef != null) {
      b.ef(ef);
    }
    if (fusion != null) {
      b.fusion(fusion);
    }
    if (alpha != null) {
      b.alpha(alpha);
    }
    if (denseDepth != null) {
      b.denseDepth(denseDepth);
    }
    if (bm25Depth != null) {
      b.bm25Depth(bm25Depth);
    }
    if (minScore != null) {
      b.minScore(minScore);
    }
    if (maxDrop != null) {
      b.maxDrop(maxDrop);
    }
    if (rerankDepth != null) {
      b.rerankDepth(rerankDepth);
    }
    if (Boolean.FALSE.equals(feedback)) {
      b.denseFeedback(DenseFeedback.OFF).lexicalFeedback(LexicalFeedback.OFF).prf(false);
    } else if (Boolean.TRUE.equals(feedback)) {
      b.denseFeedback(base.denseFeedback().enabled() ? base.denseFeedback() : DenseFeedback.DEFAULT);
      b.lexicalFeedback(base.lexicalFeedback().enabled() ? base.lexicalFeedback() : LexicalFeedback.DEFAULT);
    }
    return b.build();
  }

  /** Builds {@link RequestOptions}; every setter records an override, nothing is checked until applied. */
  public static final class Builder {
    private Integer ef;
    private FusionMethod fusion;
    private Double alpha;
    private Integer denseDepth;
    private Integer bm25Depth;
    private Double minScore;
    private Double maxDrop;
    private Boolean rerank;
    private Integer rerankDepth;
    private Boolean feedback;
    private String rewriter;

    private Builder() {}

    public Builder ef(int value) {
      ef = value;
      return this;
    }

    public Builder fusion(FusionMethod value) {
      fusion = value;
      return this;
    }

    public Builder alpha(double value) {
      alpha = value;
      return this;
    }

    public Builder denseDepth(int value) {
      denseDepth = value;
      return this;
    }

    public Builder bm25Depth(int value) {
      bm25Depth = value;
      return this;
    }

    public Builder minScore(double value) {
      minScore = value;
      return this;
    }

    public Builder maxDrop(double value) {
      maxDrop = value;
      return this;
    }

    public Builder rerank(boolean value) {
      rerank = value;
      return this;
    }

    public Builder rerankDepth(int value) {
      rerankDepth = value;
      return this;
    }

    public Builder feedback(boolean value) {
      feedback = value;
      return this;
    }

    public Builder rewriter(String value) {
      rewriter = value;
      return this;
    }

    public RequestOptions build() {
      return new RequestOptions(ef, fusion, alpha, denseDepth, bm25Depth, minScore, maxDrop, rerank, rerankDepth,
          feedback, rewriter);
    }
  }
}
