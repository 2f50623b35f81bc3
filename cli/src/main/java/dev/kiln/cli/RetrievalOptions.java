package dev.kiln.cli;

import dev.kiln.index.KnnSearch;
import dev.kiln.search.RequestOptions;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.FeedbackScope;
import dev.kiln.search.rewrite.LexicalFeedback;
import dev.kiln.search.rewrite.QueryRewriters;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Retrieval tuning shared by {@code search}, {@code eval} and {@code serve}. */
final class RetrievalOptions {
  @Option(names = "--fusion", paramLabel = "rrf|blend", defaultValue = "blend",
      description = "hybrid fusion: reciprocal rank or min-max score blend (default: ${DEFAULT-VALUE})")
  String fusion;

  @Option(names = "--alpha", paramLabel = "A", defaultValue = "" + SearchOptions.DEFAULT_ALPHA,
      description = "blend weight of the dense side, 0..1 (default: ${DEFAULT-VALUE})")
  double alpha;

  @Option(names = "--rrf-k", paramLabel = "K", defaultValue = "" + SearchOptions.DEFAULT_RRF_K,
      description = "RRF constant (default: ${DEFAULT-VALUE})")
  int rrfK;

  @Option(names = "--depth", paramLabel = "N", defaultValue = "" + SearchOptions.DEFAULT_CANDIDATE_DEPTH,
      description = "candidates per retrieval path before fusion (default: ${DEFAULT-VALUE})")
  int depth;

  @Option(names = "--dense-depth", paramLabel = "N", description = "dense candidates (default: --depth)")
  Integer denseDepth;

  @Option(names = "--bm25-depth", paramLabel = "N", description = "BM25 candidates (default: --depth)")
  Integer bm25Depth;

  @Option(names = "--ef", paramLabel = "N", defaultValue = "" + KnnSearch.AUTO_EF,
      description = "candidates each HNSW search collects before its best k are kept (at least k); default 0:"
          + " 100 up to 50k vectors a segment, growing with the square root of the largest segment's size")
  int ef;

  @Option(names = "--query-embedders", paramLabel = "N",
      description = "model instances embedding queries concurrently (default: cores, at most 4)")
  Integer queryEmbedders;

  @Option(names = "--query-cache", paramLabel = "N", defaultValue = "" + SearchOptions.DEFAULT_QUERY_CACHE,
      description = "query vectors kept so a repeated query skips the model (0 = off; default: ${DEFAULT-VALUE})")
  int queryCache;

  @Option(names = "--exact-filter-ratio", paramLabel = "R",
      defaultValue = "" + SearchOptions.DEFAULT_EXACT_FILTER_RATIO,
      description = "filters matching at most this fraction of chunks use exact vector search (default: ${DEFAULT-VALUE})")
  double exactFilterRatio;

  @Option(names = "--min-score", paramLabel = "S", description = "relevance gate: drop hits scoring below S")
  Double minScore;

  @Option(names = "--max-drop", paramLabel = "D", description = "relevance gate: drop hits more than D below the top score")
  Double maxDrop;

  @Option(names = "--rerank-model", paramLabel = "DIR",
      description = "cross-encoder directory (model .onnx or .pt + tokenizer.json + model.yaml)")
  Path rerankModel;

  @Option(names = "--rerank-depth", paramLabel = "N", defaultValue = "" + SearchOptions.DEFAULT_RERANK_DEPTH,
      description = "candidates the reranker rescores (default: ${DEFAULT-VALUE})")
  int rerankDepth;

  @Option(names = "--prf", description = "expand BM25 queries with RM3 pseudo-relevance feedback")
  boolean prf;

  @Option(names = "--dense-prf-docs", paramLabel = "N", defaultValue = "" + DenseFeedback.DEFAULT_DOCS,
      description = "hybrid search moves the query vector towards its first dense pass's top N documents; 0 = off (default: ${DEFAULT-VALUE})")
  int densePrfDocs;

  @Option(names = "--dense-prf-weight", paramLabel = "W", defaultValue = "" + DenseFeedback.DEFAULT_WEIGHT,
      description = "how far the query vector moves towards those documents; 0 = off (default: ${DEFAULT-VALUE})")
  double densePrfWeight;

  @Option(names = "--hybrid-prf-docs", paramLabel = "N", defaultValue = "" + LexicalFeedback.DEFAULT_DOCS,
      description = "hybrid search expands its BM25 query (RM3) from the top N chunks of a first fused list; 0 = off (default: ${DEFAULT-VALUE})")
  int hybridPrfDocs;

  @Option(names = "--hybrid-prf-orig-weight", paramLabel = "W", defaultValue = "" + LexicalFeedback.DEFAULT_ORIGINAL_WEIGHT,
      description = "weight the original query terms keep in that expansion, 0..1; 1 = off (default: ${DEFAULT-VALUE})")
  double hybridPrfOrigWeight;

  @Option(names = "--hybrid-prf-max-df", paramLabel = "R", defaultValue = "" + LexicalFeedback.DEFAULT_MAX_DOC_RATIO,
      description = "that expansion leaves out terms held by more than this fraction of the chunks, 0..1; 1 = keep all (default: ${DEFAULT-VALUE})")
  double hybridPrfMaxDf;

  @Option(names = "--prf-scope", paramLabel = "candidates|index", defaultValue = "candidates",
      description = "hybrid feedback passes re-score the first pass's candidates, or search the whole snapshot again (default: ${DEFAULT-VALUE})")
  String prfScope;

  @Option(names = "--rewriter", paramLabel = "NAME",
      description = "query rewriter by name: none, rm3, keywords, or one a jar on the classpath provides"
          + " (docs/REWRITERS.md); dense search embeds a rewrite that is passage text as a passage")
  String rewriter;

  /**
   * What each request sets over the searcher's options: the rewriter, checked here so that an unknown
   * name fails before any snapshot opens.
   */
  RequestOptions requestOptions() {
    if (rewriter == null) {
      return RequestOptions.NONE;
    }
    QueryRewriters.named(rewriter);
    return RequestOptions.builder().rewriter(rewriter).build();
  }

  SearchOptions toOptions() {
    SearchOptions.Builder options = SearchOptions.builder()
        .fusion(FusionMethod.parse(fusion))
        .alpha(alpha)
        .rrfK(rrfK)
        .denseDepth(denseDepth == null ? depth : denseDepth)
        .bm25Depth(bm25Depth == null ? depth : bm25Depth)
        .exactFilterRatio(exactFilterRatio)
        .ef(ef)
        .reranker(rerankModel)
        .rerankDepth(rerankDepth)
        .prf(prf)
        .denseFeedback(new DenseFeedback(densePrfDocs, densePrfWeight))
        .lexicalFeedback(new LexicalFeedback(hybridPrfDocs, LexicalFeedback.DEFAULT_TERMS, hybridPrfOrigWeight,
            hybridPrfMaxDf))
        .feedbackScope(FeedbackScope.parse(prfScope));
    if (queryEmbedders != null) {
      options.queryEmbedders(queryEmbedders);
    }
    options.queryCache(queryCache);
    if (minScore != null) {
      options.minScore(minScore);
    }
    if (maxDrop != null) {
      options.maxDrop(maxDrop);
    }
    return options.build();
  }
}
