package dev.kiln.search;

import dev.kiln.config.ConfigException;
import dev.kiln.index.KnnSearch;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.FeedbackScope;
import dev.kiln.search.rewrite.LexicalFeedback;
import java.nio.file.Path;

/**
 * Tuning of a {@link Searcher}. Immutable. Made by {@link #builder()}, which holds the one set of
 * defaults and checks every value in {@link Builder#build()}; {@link #defaults()} is an untouched
 * builder, and {@link #toBuilder()} or the {@code with…} shortcuts derive variants. Each component
 * names the CLI option that sets it, so a {@link ConfigException} points at the fix. (The record's
 * constructor is public because Java requires it; it runs the same checks.)
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
 *     --hybrid-prf-docs}, {@code --hybrid-prf-orig-weight}, {@code --hybrid-prf-max-df})
 * @param ef candidates each HNSW search collects before its best k are kept (at least k; {@code
 *     --ef}); {@link KnnSearch#AUTO_EF} (the default): the snapshot's own, from its largest segment
 *     ({@link KnnSearch#efFor(long)}); on quantised snapshots they are rescored with the float32 vectors
 * @param queryEmbedders model instances that embed queries concurrently, each loaded on first need
 *     ({@code --query-embedders})
 * @param queryCache query vectors kept, least recently used out, so a repeated query skips the model
 *     ({@code --query-cache}; 0 = off; {@link #DEFAULT_QUERY_CACHE})
 * @param feedbackScope whether the feedback passes re-score the first pass's candidates or search
 *     the whole snapshot again ({@code --prf-scope}; null = {@link FeedbackScope#CANDIDATES})
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
    int queryEmbedders,
    int queryCache,
    FeedbackScope feedbackScope) {
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
  /**
   * About 2 MB of 384-d vectors with their keys; a hit costs microseconds against the model's
   * milliseconds (docs/results/latency.md), and popular queries are few.
   */
  public static final int DEFAULT_QUERY_CACHE = 1024;

  public SearchOptions {
    if (fusion == null) {
      throw new SettingException(Setting.FUSION, " must be rrf or blend");
    }
    if (rrfK < 0) {
      throw new SettingException(Setting.RRF_K, " must be >= 0, was " + rrfK);
    }
    if (!(alpha >= 0 && alpha <= 1)) {
      throw new SettingException(Setting.ALPHA, " must be in [0, 1], was " + alpha);
    }
    if (denseDepth < 1) {
      throw new SettingException(Setting.DENSE_DEPTH, " must be >= 1, was " + denseDepth);
    }
    if (bm25Depth < 1) {
      throw new SettingException(Setting.BM25_DEPTH, " must be >= 1, was " + bm25Depth);
    }
    if (!(exactFilterRatio >= 0 && exactFilterRatio <= 1)) {
      throw new SettingException(Setting.EXACT_FILTER_RATIO, " must be in [0, 1], was " + exactFilterRatio);
    }
    if (!Double.isNaN(maxDrop) && maxDrop < 0) {
      throw new SettingException(Setting.MAX_DROP, " must be >= 0, was " + maxDrop);
    }
    if (denseFeedback == null) {
      denseFeedback = DenseFeedback.OFF;
    }
    if (lexicalFeedback == null) {
      lexicalFeedback = LexicalFeedback.OFF;
    }
    if (rerankDepth < 1) {
      throw new SettingException(Setting.RERANK_DEPTH, " must be >= 1, was " + rerankDepth);
    }
    if (ef < 0) {
      throw new SettingException(Setting.EF, " must be >= 1, or 0 for the snapshot's default, was " + ef);
    }
    if (queryEmbedders < 1) {
      throw new SettingException(Setting.QUERY_EMBEDDERS, " must be >= 1, was " + queryEmbedders);
    }
    if (queryCache < 0) {
      throw new SettingException(Setting.QUERY_CACHE, " must be >= 0 (0 = off), was " + queryCache);
    }
    if (feedbackScope == null) {
      feedbackScope = FeedbackScope.CANDIDATES;
    }
  }

  /**
   * One query embedder per core, at most 4: a query is one short sequence on one intra-op thread,
   * so more instances than cores only queue, and each holds its own copy of the model.
   */
  public static int defaultQueryEmbedders() {
    return Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), 4));
  }

  /** A builder holding Kiln's defaults (see {@link #defaults()}). */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding these options, to derive a variant. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Kiln's defaults. Hybrid fusion is the min-max blend with α 0.5: it measured better than RRF on
   * every set tried (Cranfield with MiniLM 0.4161 vs 0.4059 nDCG@10, chosen there; SciFact with bge
   * 0.7386 vs 0.7300), as the raw-library baselines also show. RRF stays available. The dense side
   * of hybrid search takes {@link DenseFeedback#DEFAULT} pseudo-relevance feedback, its BM25 side
   * {@link LexicalFeedback#DEFAULT} (both chosen on SciFact train, docs/QUALITY.md).
   */
  public static SearchOptions defaults() {
    return builder().build();
  }

  /** The deeper of the two per-path candidate depths. */
  public int candidateDepth() {
    return Math.max(denseDepth, bm25Depth);
  }

  public SearchOptions withFusion(FusionMethod value) {
    return toBuilder().fusion(value).build();
  }

  public SearchOptions withRrfK(int value) {
    return toBuilder().rrfK(value).build();
  }

  public SearchOptions withAlpha(double value) {
    return toBuilder().alpha(value).build();
  }

  /** Sets the candidate depth of both retrieval paths. */
  public SearchOptions withCandidateDepth(int value) {
    return toBuilder().depth(value).build();
  }

  public SearchOptions withDepths(int dense, int bm25) {
    return toBuilder().denseDepth(dense).bm25Depth(bm25).build();
  }

  public SearchOptions withExactFilterRatio(double value) {
    return toBuilder().exactFilterRatio(value).build();
  }

  /** Relevance gates; NaN switches a gate off. */
  public SearchOptions withGates(double floor, double drop) {
    return toBuilder().minScore(floor).maxDrop(drop).build();
  }

  public SearchOptions withReranker(Path modelDir, int depth) {
    return toBuilder().reranker(modelDir).rerankDepth(depth).build();
  }

  public SearchOptions withPrf(boolean value) {
    return toBuilder().prf(value).build();
  }

  public SearchOptions withDenseFeedback(DenseFeedback value) {
    return toBuilder().denseFeedback(value).build();
  }

  public SearchOptions withLexicalFeedback(LexicalFeedback value) {
    return toBuilder().lexicalFeedback(value).build();
  }

  public SearchOptions withEf(int value) {
    return toBuilder().ef(value).build();
  }

  public SearchOptions withQueryEmbedders(int value) {
    return toBuilder().queryEmbedders(value).build();
  }

  public SearchOptions withQueryCache(int value) {
    return toBuilder().queryCache(value).build();
  }

  public SearchOptions withFeedbackScope(FeedbackScope value) {
    return toBuilder().feedbackScope(value).build();
  }

  /** One line for the start-up log, so a run explains itself. */
  public String describe() {
    return "fusion=" + fusion.label() + " rrf-k=" + rrfK + " alpha=" + alpha + " dense-depth="
        + denseDepth + " bm25-depth=" + bm25Depth + " ef=" + (ef == KnnSearch.AUTO_EF ? "auto" : Integer.toString(ef)) + " query-embedders=" + queryEmbedders + " query-cache=" + queryCache
        + " exact-filter-ratio=" + exactFilterRatio
        + " min-score=" + (Double.isNaN(minScore) ? "off" : minScore)
        + " max-drop=" + (Double.isNaN(maxDrop) ? "off" : maxDrop)
        + " rerank=" + (reranker == null ? "off" : reranker + " (top " + rerankDepth + ")")
        + " prf=" + (prf ? "rm3" : "off") + " dense-prf=" + denseFeedback.describe()
        + " hybrid-prf=" + lexicalFeedback.describe() + " prf-scope=" + feedbackScope.label();
  }

  /**
   * Builds {@link SearchOptions}. Its field initialisers are Kiln's defaults — the only place they
   * are written down. Setters only record; {@link #build()} checks every value and names the option
   * to fix ({@link ConfigException}).
   */
  public static final class Builder {
    private FusionMethod fusion = FusionMethod.BLEND;
    private int rrfK = DEFAULT_RRF_K;
    private double alpha = DEFAULT_ALPHA;
    private int denseDepth = DEFAULT_CANDIDATE_DEPTH;
    private int bm25Depth = DEFAULT_CANDIDATE_DEPTH;
    private double exactFilterRatio = DEFAULT_EXACT_FILTER_RATIO;
    private double minScore = Double.NaN;
    private double maxDrop = Double.NaN;
    private Path reranker;
    private int rerankDepth = DEFAULT_RERANK_DEPTH;
    private boolean prf;
    private DenseFeedback denseFeedback = DenseFeedback.DEFAULT;
    private LexicalFeedback lexicalFeedback = LexicalFeedback.DEFAULT;
    private int ef = KnnSearch.AUTO_EF;
    private int queryEmbedders = defaultQueryEmbedders();
    private int queryCache = DEFAULT_QUERY_CACHE;
    private FeedbackScope feedbackScope = FeedbackScope.CANDIDATES;

    private Builder() {}

    private Builder(SearchOptions o) {
      fusion = o.fusion;
      rrfK = o.rrfK;
      alpha = o.alpha;
      denseDepth = o.denseDepth;
      bm25Depth = o.bm25Depth;
      exactFilterRatio = o.exactFilterRatio;
      minScore = o.minScore;
      maxDrop = o.maxDrop;
      reranker = o.reranker;
      rerankDepth = o.rerankDepth;
      prf = o.prf;
      denseFeedback = o.denseFeedback;
      lexicalFeedback = o.lexicalFeedback;
      ef = o.ef;
      queryEmbedders = o.queryEmbedders;
      queryCache = o.queryCache;
      feedbackScope = o.feedbackScope;
    }

    /** {@code --fusion}: how hybrid search combines its two candidate lists. */
    public Builder fusion(FusionMethod value) {
      fusion = value;
      return this;
    }

    /** {@code --rrf-k}. */
    public Builder rrfK(int value) {
      rrfK = value;
      return this;
    }

    /** {@code --alpha}: the dense side's weight in the blend. */
    public Builder alpha(double value) {
      alpha = value;
      return this;
    }

    /** {@code --depth}: the candidate depth of both paths. */
    public Builder depth(int value) {
      denseDepth = value;
      bm25Depth = value;
      return this;
    }

    /** {@code --dense-depth}. */
    public Builder denseDepth(int value) {
      denseDepth = value;
      return this;
    }

    /** {@code --bm25-depth}. */
    public Builder bm25Depth(int value) {
      bm25Depth = value;
      return this;
    }

    /** {@code --exact-filter-ratio}. */
    public Builder exactFilterRatio(double value) {
      exactFilterRatio = value;
      return this;
    }

    /** {@code --min-score}; NaN = off. */
    public Builder minScore(double value) {
      minScore = value;
      return this;
    }

    /** {@code --max-drop}; NaN = off. */
    public Builder maxDrop(double value) {
      maxDrop = value;
      return this;
    }

    /** {@code --rerank-model}; null = no reranking. */
    public Builder reranker(Path modelDir) {
      reranker = modelDir;
      return this;
    }

    /** {@code --rerank-depth}. */
    public Builder rerankDepth(int value) {
      rerankDepth = value;
      return this;
    }

    /** {@code --prf}. */
    public Builder prf(boolean value) {
      prf = value;
      return this;
    }

    /** {@code --dense-prf-docs}, {@code --dense-prf-weight}; null = off. */
    public Builder denseFeedback(DenseFeedback value) {
      denseFeedback = value;
      return this;
    }

    /** {@code --hybrid-prf-docs}, {@code --hybrid-prf-orig-weight}; null = off. */
    public Builder lexicalFeedback(LexicalFeedback value) {
      lexicalFeedback = value;
      return this;
    }

    /** {@code --ef}. */
    public Builder ef(int value) {
      ef = value;
      return this;
    }

    /** {@code --query-embedders}. */
    public Builder queryEmbedders(int value) {
      queryEmbedders = value;
      return this;
    }

    /** {@code --query-cache}: query vectors kept (0 = off). */
    public Builder queryCache(int value) {
      queryCache = value;
      return this;
    }

    /** {@code --prf-scope}. */
    public Builder feedbackScope(FeedbackScope value) {
      feedbackScope = value;
      return this;
    }

    /** The options, every value checked; throws {@link ConfigException} naming the first option to fix. */
    public SearchOptions build() {
      return new SearchOptions(fusion, rrfK, alpha, denseDepth, bm25Depth, exactFilterRatio, minScore, maxDrop,
          reranker, rerankDepth, prf, denseFeedback, lexicalFeedback, ef, queryEmbedders, queryCache,
          feedbackScope);
    }
  }
}
