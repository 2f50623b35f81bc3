package dev.kiln.search;

import java.nio.file.Path;

/**
 * A search setting as the library names it in its errors ({@link SettingException}): the
 * {@link SearchOptions.Builder} method or {@link SearchRequest} component that takes it, in kebab case.
 * A front end maps it to its own name once: the CLI to its flag, the HTTP service to its query parameter.
 */
public enum Setting {
  /** {@link SearchRequest#filter()}: the metadata filter. */
  FILTER("filter"),
  /** {@link SearchOptions.Builder#fusion}. */
  FUSION("fusion"),
  /** {@link SearchOptions.Builder#rrfK}. */
  RRF_K("rrf-k"),
  /** {@link SearchOptions.Builder#alpha}. */
  ALPHA("alpha"),
  /** {@link SearchOptions.Builder#denseDepth} (or {@link SearchOptions.Builder#depth}). */
  DENSE_DEPTH("dense-depth"),
  /** {@link SearchOptions.Builder#bm25Depth} (or {@link SearchOptions.Builder#depth}). */
  BM25_DEPTH("bm25-depth"),
  /** {@link SearchOptions.Builder#exactFilterRatio}. */
  EXACT_FILTER_RATIO("exact-filter-ratio"),
  /** {@link SearchOptions.Builder#minScore}. */
  MIN_SCORE("min-score"),
  /** {@link SearchOptions.Builder#maxDrop}. */
  MAX_DROP("max-drop"),
  /** {@link RequestOptions#rerank()}: reranking switched on or off for one request. */
  RERANK("rerank"),
  /** {@link RequestOptions#feedback()}: pseudo-relevance feedback switched on or off for one request. */
  FEEDBACK("feedback"),
  /** {@link RequestOptions#rewriter()} or {@link SearcherBuilder#rewriter(String)}: a query rewriter by name. */
  REWRITER("rewriter"),
  /** {@link SearchOptions.Builder#reranker(Path)}: the cross-encoder's directory. */
  RERANKER("reranker"),
  /** {@link SearchOptions.Builder#rerankDepth}. */
  RERANK_DEPTH("rerank-depth"),
  /** {@link SearchOptions.Builder#ef}. */
  EF("ef"),
  /** {@link SearchOptions.Builder#queryEmbedders}. */
  QUERY_EMBEDDERS("query-embedders"),
  /** {@link SearchOptions.Builder#queryCache}. */
  QUERY_CACHE("query-cache"),
  /** {@link SearchOptions.Builder#feedbackScope}. */
  FEEDBACK_SCOPE("feedback-scope"),
  /** {@link dev.kiln.search.rewrite.DenseFeedback#docs()}. */
  DENSE_FEEDBACK_DOCS("dense-feedback.docs"),
  /** {@link dev.kiln.search.rewrite.DenseFeedback#weight()}. */
  DENSE_FEEDBACK_WEIGHT("dense-feedback.weight"),
  /** {@link dev.kiln.search.rewrite.LexicalFeedback#docs()}. */
  LEXICAL_FEEDBACK_DOCS("lexical-feedback.docs"),
  /** {@link dev.kiln.search.rewrite.LexicalFeedback#originalWeight()}. */
  LEXICAL_FEEDBACK_ORIGINAL_WEIGHT("lexical-feedback.original-weight"),
  /** {@link dev.kiln.search.rewrite.LexicalFeedback#maxDocRatio()}. */
  LEXICAL_FEEDBACK_MAX_DOC_RATIO("lexical-feedback.max-doc-ratio");

  private final String key;

  Setting(String key) {
    this.key = key;
  }

  /** The library's name for it, as its errors print it. */
  public String key() {
    return key;
  }
}
