package dev.kiln.search;

import dev.kiln.search.rerank.Reranker;
import dev.kiln.search.rewrite.QueryRewriter;
import dev.kiln.search.rewrite.QueryRewriters;
import dev.kiln.search.rewrite.Rm3Rewriter;
import org.apache.lucene.search.IndexSearcher;

/**
 * The stages one set of {@link SearchOptions} composes on a snapshot: the passes ({@link Retrieval}),
 * the retriever per mode, the query rewriter, the rerank stage and the relevance gate. A {@link Searcher}
 * prepares its own once at open; a request that sets options of its own ({@link RequestOptions}) gets a
 * pipeline composed for it ({@link #forRequest}), which costs a few small objects and no I/O.
 */
final class SearchPipeline {
  /** What every pipeline of one snapshot shares. */
  record Snapshot(IndexSearcher searcher, Bm25QueryBuilder bm25Queries, boolean quantized, Reranker reranker,
      QueryRewriter customRewriter) {}

  private final Snapshot snapshot;
  private final SearchOptions options;
  private final Retrieval retrieval;
  private final Retrievers retrievers;
  private final QueryRewriter rewriter;
  private final RerankStage rerank;
  private final RelevanceGate gate;

  private SearchPipeline(Snapshot snapshot, SearchOptions options, QueryRewriter rewriter, RerankStage rerank) {
    this.snapshot = snapshot;
    this.options = options;
    this.retrieval = new Retrieval(snapshot.searcher(), snapshot.bm25Queries(), options, snapshot.quantized());
    this.retrievers = new Retrievers(snapshot.searcher(), retrieval, snapshot.bm25Queries(), options);
    this.rewriter = rewriter;
    this.rerank = rerank;
    this.gate = new RelevanceGate(options.minScore(), options.maxDrop());
  }

  /** The searcher's own pipeline: its custom rewriter, else RM3 with {@code prf}, else none. */
  static SearchPipeline of(Snapshot snapshot, SearchOptions options) {
    return new SearchPipeline(snapshot, options, defaultRewriter(snapshot, options),
        snapshot.reranker() == null ? null : new RerankStage(snapshot.reranker(), options.rerankDepth()));
  }

  private static QueryRewriter defaultRewriter(Snapshot snapshot, SearchOptions options) {
    return snapshot.customRewriter() != null ? snapshot.customRewriter()
        : options.prf() ? new Rm3Rewriter() : QueryRewriter.IDENTITY;
  }

  /**
   * This pipeline with {@code request}'s options over its own; this one itself when the request sets
   * none.
   *
   * @throws SettingException for a value out of range, an unknown rewriter, or rerank asked for where
   *     the searcher has no reranker
   */
  SearchPipeline forRequest(RequestOptions request) {
    if (request.isEmpty()) {
      return this;
    }
    SearchOptions effective = request.applyTo(options);
    QueryRewriter chosen;
    if (request.rewriter() != null) {
      chosen = QueryRewriters.named(request.rewriter());
    } else if (effective.prf() == options.prf()) {
      chosen = rewriter;
    } else {
      chosen = defaultRewriter(snapshot, effective);
    }
    RerankStage stage = null;
    if (Boolean.TRUE.equals(request.rerank()) && snapshot.reranker() == null) {
      throw new SettingException(Setting.RERANK,
          " cannot be switched on: this server has no reranker model (--rerank-model)");
    }
    if (snapshot.reranker() != null && !Boolean.FALSE.equals(request.rerank())) {
      stage = new RerankStage(snapshot.reranker(), effective.rerankDepth());
    }
    return new SearchPipeline(snapshot, effective, chosen, stage);
  }

  /**
   * The name ({@link QueryRewriters}) of this pipeline's rewriter, by which a router runs the same one:
   * {@code none} for none, {@code rm3} for {@code --prf}'s; null for a rewriter object given to the
   * searcher's builder, which has no name.
   *
   * @param request the options this pipeline was composed for ({@link #forRequest})
   */
  String rewriterName(RequestOptions request) {
    if (rewriter == QueryRewriter.IDENTITY) {
      return "none";
    }
    if (request.rewriter() != null && QueryRewriters.named(request.rewriter()) == rewriter) {
      return request.rewriter();
    }
    return snapshot.customRewriter() == null && options.prf() ? "rm3" : null;
  }

  SearchOptions options() {
    return options;
  }

  Retrieval retrieval() {
    return retrieval;
  }

  Retrievers retrievers() {
    return retrievers;
  }

  QueryRewriter rewriter() {
    return rewriter;
  }

  /** The rerank stage, or null when this pipeline does not rerank. */
  RerankStage rerank() {
    return rerank;
  }

  RelevanceGate gate() {
    return gate;
  }
}
