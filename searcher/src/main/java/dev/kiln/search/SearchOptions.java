package dev.kiln.search;

import dev.kiln.config.ConfigException;
import dev.kiln.index.KnnSearch;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.LexicalFeedback;
import java.nio.file.Path;

/**
 * Tuning of a {@link Searcher}. Immutable; derive variants with the {@code with…} methods. Each
 * component names the CLI option that sets it, so a {@link ConfigException} points at the fix.
 *
 * @param fusion how hybrid search combines its two candidate lists ({@code --fusion})
 * @param rrfK the reciprocal rank fusion constant: larger values flatten the advantage of top ranks
 *     ({@code --rrf-k})
 * @param alpha weight of the dense side in {@link FusionMethod#BLEND} ({@code --alpha})
 * @param denseDepth candidates hybrid search takes from HNSW before fusing ({@code --dense-depth})
 * @param bm25Depth candidates hybrid search takes from BM25 before fusing ({@code --bm25-depth})
 * @param exactFilterRatio when a filter matches at most this fraction of the snapshot's chunks, dense
 *     search scores every matching vector exactly instead of walking the graph ({@code
 *     --exact-filter-ratio}; 0 leaves the choice to Lucene)
 * @param minScore relevance gate: hits scoring below it are dropped ({@code --min-score}; NaN = off)
 * @param maxDrop relevance gate: hits more than this below the top score are dropped ({@code
 *     --max-drop}; NaN = off)
 * @param reranker a cross-encoder model directory, or {@code null} to skip reranking ({@code
 *     --rerank-model})
 * @param rerankDepth how many fused candidates the reranker rescores before cutting to k (at least
 *     k, so every returned score is a reranker score; {@code --rerank-depth})
 * @param prf whether BM25 queries are expanded by pseudo-relevance feedback ({@code --prf})
 * @param denseFeedback pseudo-relevance feedback on hybrid search's dense side ({@code
 *     --dense-prf-docs}, {@code --dense-prf-weight})
 * @param lexicalFeedback RM3 on hybrid search's BM25 side, fed by the first fused list ({@code
 *     --hybrid-prf-docs}, {@code --hybrid-prf-orig-weight})
 * @param ef candidates each HNSW search collects before its best k are kept (at least k; {@code
 *     --ef}); on quantised snapshots they are rescored with the float32 vectors
 * @param queryEmbedders model instances that embed queries concurrently, each loaded on first need
 *     ({@code --query-embedders})
 */
public record SearchOptions(
    FusionMethod fusion,
    int rrfK,
    double alpha,
    int denseDepth,
    int bm25Depth,
    double exactFilterRatio,
    double minScore,
    double maxDrop,
    Path reranker,
    int rerankDepth,
    boolean prf,
    DenseFeedback denseFeedback,
    LexicalFeedback lexicalFeedback,
    int ef,
    int queryEmbedders) {
  /** The constant from Cormack, Clarke and Büttcher (2009), which most fusion systems keep. */
  public static final int DEFAULT_RRF_K = 60;
  public static final int DEFAULT_CANDIDATE_DEPTH = 100;
  public static final double DEFAULT_ALPHA = 0.5;
  /**
   * Below 1 % of the chunks, scoring the matching vectors costs at most a few thousand dot products
   * per 100k chunks, and filtered graph walks start paying for long detours around excluded nodes.
   */
  public static final double DEFAULT_EXACT_FILTER_RATIO = 0.01;
  public static final int DEFAULT_RERANK_DEPTH = 50;

  public SearchOptions {
    if (fusion == null) {
      throw new ConfigException("--fusion must be rrf or blend");
    }
    if (rrfK < 0) {
      throw new ConfigException("--rrf-k must be >= 0, was " + rrfK);
    }
    if (!(alpha >= 0 && alpha <= 1)) {
      throw new ConfigException("--alpha must be in [0, 1], was " + alpha);
    }
    if (denseDepth < 1 || bm25Depth < 1) {
      throw new ConfigException("--depth must be >= 1, was " + Math.min(denseDepth, bm25Depth));
    }
    if (!(exactFilterRatio >= 0 && exactFilterRatio <= 1)) {
      throw new ConfigException("--exact-filter-ratio must be in [0, 1], was " + exactFilterRatio);
    }
    if (!Double.isNaN(maxDrop) && maxDrop < 0) {
      throw new ConfigException("--max-drop must be >= 0, was " + maxDrop);
    }
    if (denseFeedback == null) {
      denseFeedback = DenseFeedback.OFF;
    }
    if (lexicalFeedback == null) {
      lexicalFeedback = LexicalFeedback.OFF;
    }
    if (rerankDepth < 1) {
      throw new ConfigException("--rerank-depth must be >= 1, was " + rerankDepth);
    }
    if (ef < 1) {
      throw new ConfigException("--ef must be >= 1, was " + ef);
    }
    if (queryEmbedders < 1) {
      throw new ConfigException("--query-embedders must be >= 1, was " + queryEmbedders);
    }
  }

  /**
   * One query embedder per core, at most 4: a query is one short sequence on one intra-op thread,
   * so more instances than cores only queue, and each holds its own copy of the model.
   */
  public static int defaultQueryEmbedders() {
    return Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), 4));
  }

  public SearchOptions withEf(int value) {
    return new SearchOptions(fusion, rrfK, alpha, denseDepth, bm25Depth, exactFilterRatio, minScore,
        maxDrop, reranker, rerankDepth, prf, denseFeedback, lexicalFeedback, value, queryEmbedders);
  }

  public SearchOptions withQueryEmbedders(int value) {
    return new SearchOptions(fusion, rrfK, alpha, denseDepth, bm25Depth, exactFilterRatio, minScore,
        maxDrop, reranker, rerankDepth, prf, denseFeedback, lexicalFeedback, ef, value);
  }

  /**
   * Backwards-compatible constructor: RRF with the given constant and depth on both paths, no query
   * expansion of either kind.
   */
  public SearchOptions(int rrfK, int candidateDepth) {
    this(FusionMethod.RRF, rrfK, DEFAULT_ALPHA, candidateDepth, candidateDepth,
        DEFAULT_EXACT_FILTER_RATIO, Double.NaN, Double.NaN, null, DEFAULT_RERANK_DEPTH, false,
        DenseFeedback.OFF, LexicalFeedback.OFF, KnnSearch.DEFAULT_EF, defaultQueryEmbedders());
  }

  /** The deeper of the two per-path candidate depths. */
  public int candidateDepth() {
    return Math.max(denseDepth, bm25Depth);
  }

  /**
   * Kiln's defaults. Hybrid fusion is the min-max blend with α 0.5: it measured better than RRF on
   * every set tried (Cranfield with MiniLM 0.4161 vs 0.4059 nDCG@10, chosen there; SciFact with bge
   * 0.7386 vs 0.7300), as the raw-library baselines also show. RRF stays available. The dense side
   * of hybrid search takes {@link DenseFeedback#DEFAULT} pseudo-relevance feedback, its BM25 side
   * {@link LexicalFeedback#DEFAULT} (both chosen on SciFact train, docs/QUALITY.md).
   */
  public static SearchOptions defaults() {
    return new SearchOptions(DEFAULT_RRF_K, DEFAULT_CANDIDATE_DEPTH).withFusion(FusionMethod.BLEND)
        .withDenseFeedback(DenseFeedback.DEFAULT).withLexicalFeedback(LexicalFeedback.DEFAULT);
  }

  public SearchOptions withFusion(FusionMethod value) {
    return new SearchOptions(value, rrfK, alpha, denseDepth, bm25Depth, exactFilterRatio, minScore,
        maxDrop, reranker, rerankDepth, prf, denseFeedback, lexicalFeedback, ef, queryEmbedders);
  }

  public SearchOptions withRrfK(int value) {
    return new SearchOptions(fusion, value, alpha, denseDepth, bm25Depth, exactFilterRatio, minScore,
        maxDrop, reranker, rerankDepth, prf, denseFeedback, lexicalFeedback, ef, queryEmbedders);
  }

  public SearchOptions withAlpha(double value) {
    return new SearchOptions(fusion, rrfK, value, denseDepth, bm25Depth, exactFilterRatio, minScore,
        maxDrop, reranker, rerankDepth, prf, denseFeedback, lexicalFeedback, ef, queryEmbedders);
  }

  /** Sets the candidate depth of both retrieval paths. */
  public SearchOptions withCandidateDepth(int value) {
    return withDepths(value, value);
  }

  public SearchOptions withDepths(int dense, int bm25) {
    return new SearchOptions(fusion, rrfK, alpha, dense, bm25, exactFilterRatio, minScore, maxDrop,
        reranker, rerankDepth, prf, denseFeedback, lexicalFeedback, ef, queryEmbedders);
  }

  public SearchOptions withExactFilterRatio(double value) {
    return new SearchOptions(fusion, rrfK, alpha, denseDepth, bm25Depth, value, minScore, maxDrop,
        reranker, rerankDepth, prf, denseFeedback, lexicalFeedback, ef, queryEmbedders);
  }

  /** Relevance gates; NaN switches a gate off. */
  public SearchOptions withGates(double floor, double drop) {
    return new SearchOptions(fusion, rrfK, alpha, denseDepth, bm25Depth, exactFilterRatio, floor, drop,
        reranker, rerankDepth, prf, denseFeedback, lexicalFeedback, ef, queryEmbedders);
  }

  public SearchOptions withReranker(Path modelDir, int depth) {
    return new SearchOptions(fusion, rrfK, alpha, denseDepth, bm25Depth, exactFilterRatio, minScore,
        maxDrop, modelDir, depth, prf, denseFeedback, lexicalFeedback, ef, queryEmbedders);
  }

  public SearchOptions withPrf(boolean value) {
    return new SearchOptions(fusion, rrfK, alpha, denseDepth, bm25Depth, exactFilterRatio, minScore,
        maxDrop, reranker, rerankDepth, value, denseFeedback, lexicalFeedback, ef, queryEmbedders);
  }

  public SearchOptions withDenseFeedback(DenseFeedback value) {
    return new SearchOptions(fusion, rrfK, alpha, denseDepth, bm25Depth, exactFilterRatio, minScore,
        maxDrop, reranker, rerankDepth, prf, value, lexicalFeedback, ef, queryEmbedders);
  }

  public SearchOptions withLexicalFeedback(LexicalFeedback value) {
    return new SearchOptions(fusion, rrfK, alpha, denseDepth, bm25Depth, exactFilterRatio, minScore,
        maxDrop, reranker, rerankDepth, prf, denseFeedback, value, ef, queryEmbedders);
  }

  /** One line for the start-up log, so a run explains itself. */
  public String describe() {
    return "fusion=" + fusion.label() + " rrf-k=" + rrfK + " alpha=" + alpha + " dense-depth="
        + denseDepth + " bm25-depth=" + bm25Depth + " ef=" + ef + " query-embedders=" + queryEmbedders
        + " exact-filter-ratio=" + exactFilterRatio
        + " min-score=" + (Double.isNaN(minScore) ? "off" : minScore)
        + " max-drop=" + (Double.isNaN(maxDrop) ? "off" : maxDrop)
        + " rerank=" + (reranker == null ? "off" : reranker + " (top " + rerankDepth + ")")
        + " prf=" + (prf ? "rm3" : "off") + " dense-prf=" + denseFeedback.describe()
        + " hybrid-prf=" + lexicalFeedback.describe();
  }
}
