package dev.kiln.search;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.kiln.index.KnnSearch;
import dev.kiln.index.ShardSchema;
import dev.kiln.search.filter.FilteredVectorSearch;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.search.fusion.Fusion;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.fusion.MinMaxBlend;
import dev.kiln.search.fusion.ReciprocalRankFusion;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.FeedbackScope;
import dev.kiln.search.rewrite.LexicalFeedback;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollectorManager;

/**
 * The part of a search a shard group runs for a router, so that the router's merged answer is the
 * one a single process over every shard gives (docs/ARCHITECTURE.md, "Serving beyond one machine").
 *
 * <ol>
 *   <li>{@link ShardGroupStats#stats}: what only the whole snapshot knows — the query terms' document and term
 *       frequencies and the text field's collection statistics (BM25's idf and average length), how
 *       many chunks the filter matches (the exact-versus-graph choice of {@link FilteredVectorSearch}
 *       is snapshot-wide), the largest segment (the automatic HNSW depth) and each shard's maxDoc
 *       (where its doc ids start in the single process), and the query's embedding. The router sums
 *       them and takes the first group's embedding for all.</li>
 *   <li>{@link #legs}: each first-stage leg's top candidates, BM25 scored with the summed statistics,
 *       dense with the summed filter decision and depth, as (shard, doc in shard, raw score).</li>
 *   <li>{@link #fetch}: the stored hits of the candidates the router kept, with the router's scores.</li>
 * </ol>
 *
 * <p>Fusion, its normalisation and the cut to k happen at the router, over the union, with the
 * searcher's own fusion classes. Hybrid's feedback passes run as further phases between legs and
 * fetch ({@link ShardGroupFeedback}); relevance gates run at the router on the fetched hits, which the
 * groups calibrate; a reranker runs at the router on the fetched candidates; a snapshot served with
 * query rewriting is refused ({@link #checkSplittable}). A request's retrieval options ({@link
 * #options}) make the plan every phase and the router search with.
 */
public final class ShardGroupSearch {
  private ShardGroupSearch() {}

  /** One group's share of the collection statistics a query needs. */
  public record Stats(
      @JsonProperty("snapshot") String snapshot,
      @JsonProperty("terms") Map<String, long[]> terms,
      @JsonProperty("doc_count") long docCount,
      @JsonProperty("sum_total_term_freq") long sumTotalTermFreq,
      @JsonProperty("sum_doc_freq") long sumDocFreq,
      @JsonProperty("max_doc") long maxDoc,
      @JsonProperty("num_docs") long numDocs,
      @JsonProperty("filter_matches") long filterMatches,
      @JsonProperty("largest_segment") long largestSegment,
      @JsonProperty("shards") int[] shards,
      @JsonProperty("shard_max_docs") int[] shardMaxDocs,
      @JsonProperty("plan") Plan plan,
      @JsonProperty("effective") Plan effective,
      @JsonProperty("vector") float[] vector) {
    /**
     * The plan this request searches with: the server's ({@code plan}, which a federating router merges
     * roots with, as a federated server does) with the request's retrieval options over it.
     */
    public Plan effectivePlan() {
      return effective != null ? effective : plan;
    }
  }

  /**
   * What a group searches with, which every group of one router must share: the router fuses and
   * decides the dense path with it, and refuses groups that disagree.
   *
   * @param shardCount the snapshot's shards, all groups together
   */
  public record Plan(
      @JsonProperty("model") String model,
      @JsonProperty("shard_count") int shardCount,
      @JsonProperty("fusion") String fusion,
      @JsonProperty("rrf_k") int rrfK,
      @JsonProperty("alpha") double alpha,
      @JsonProperty("ef") int ef,
      @JsonProperty("exact_ratio") double exactRatio,
      @JsonProperty("dense_depth") int denseDepth,
      @JsonProperty("bm25_depth") int bm25Depth,
      @JsonProperty("dense_prf_docs") int densePrfDocs,
      @JsonProperty("dense_prf_weight") double densePrfWeight,
      @JsonProperty("hybrid_prf_docs") int hybridPrfDocs,
      @JsonProperty("hybrid_prf_terms") int hybridPrfTerms,
      @JsonProperty("hybrid_prf_orig_weight") double hybridPrfOrigWeight,
      @JsonProperty("hybrid_prf_max_df") double hybridPrfMaxDf,
      @JsonProperty("prf_scope") String prfScope,
      @JsonProperty("min_score") Double minScore,
      @JsonProperty("max_drop") Double maxDrop,
      @JsonProperty("rerank_depth") int rerankDepth,
      @JsonProperty("reranker") String reranker,
      @JsonProperty("rewriter") String rewriter) {
    /** The fusion the single process runs with these settings ({@link Retrievers#fusion}). */
    public Fusion toFusion() {
      return FusionMethod.parse(fusion) == FusionMethod.RRF ? new ReciprocalRankFusion(rrfK) : new MinMaxBlend(alpha);
    }

    /** Hybrid's dense feedback ({@code --dense-prf-docs}, {@code --dense-prf-weight}). */
    public DenseFeedback denseFeedback() {
      return new DenseFeedback(densePrfDocs, densePrfWeight);
    }

    /** Hybrid's lexical feedback ({@code --hybrid-prf-*}). */
    public LexicalFeedback lexicalFeedback() {
      return new LexicalFeedback(hybridPrfDocs, hybridPrfTerms, hybridPrfOrigWeight, hybridPrfMaxDf);
    }

    /** {@code --prf-scope}. */
    public FeedbackScope feedbackScope() {
      return FeedbackScope.parse(prfScope);
    }

    /** The relevance gates ({@code --min-score}, {@code --max-drop}; null: off). */
    public RelevanceGate gate() {
      return new RelevanceGate(minScore == null ? Double.NaN : minScore, maxDrop == null ? Double.NaN : maxDrop);
    }
  }

  /** The plan of {@code searcher}'s snapshot and options. */
  public static Plan plan(Searcher searcher) {
    return plan(searcher, new Effective(searcher.options(), searcher.rewriterName()));
  }

  /** The plan of {@code searcher}'s snapshot under a request's effective options. */
  public static Plan plan(Searcher searcher, Effective effective) {
    SearchOptions o = effective.options();
    DenseFeedback d = o.denseFeedback();
    LexicalFeedback l = o.lexicalFeedback();
    return new Plan(searcher.modelFingerprint(), searcher.manifest().shards().size(), o.fusion().label(), o.rrfK(),
        o.alpha(), o.ef(), o.exactFilterRatio(), o.denseDepth(), o.bm25Depth(), d.docs(), d.weight(), l.docs(),
        l.terms(), l.originalWeight(), l.maxDocRatio(), o.feedbackScope().label(),
        Double.isNaN(o.minScore()) ? null : o.minScore(), Double.isNaN(o.maxDrop()) ? null : o.maxDrop(),
        o.rerankDepth(), o.reranker() == null ? null : String.valueOf(o.reranker().getFileName()),
        effective.rewriter());
  }

  /** Statistics summed over every group, as the router sends them back with {@link #legs}. */
  public record Global(
      @JsonProperty("terms") Map<String, long[]> terms,
      @JsonProperty("doc_count") long docCount,
      @JsonProperty("sum_total_term_freq") long sumTotalTermFreq,
      @JsonProperty("sum_doc_freq") long sumDocFreq,
      @JsonProperty("max_doc") long maxDoc,
      @JsonProperty("ef") int ef,
      @JsonProperty("exact") boolean exact,
      @JsonProperty("vector") float[] vector) {}

  /** A candidate: its shard, its doc id within that shard, its leg's raw score. */
  public record Hit(@JsonProperty("shard") int shard, @JsonProperty("doc") int doc,
      @JsonProperty("score") double score) {}

  /** One leg's candidates and how many of them the single process keeps ({@code depth}). */
  public record Leg(@JsonProperty("name") String name, @JsonProperty("depth") int depth,
      @JsonProperty("hits") List<Hit> hits) {}

  /**
   * Refuses a searcher whose pipeline has a stage the router does not split: query rewriting. Hybrid's
   * feedback passes ({@link ShardGroupFeedback}), the relevance gates (the groups calibrate the hits they
   * fetch, the router gates) and the reranker (the router reranks the merged candidates with its own,
   * {@code kiln route --rerank-model}) are split.
   */
  public static void checkSplittable(Searcher searcher) {
    if (!searcher.splittablePipeline()) {
      throw new IllegalStateException("a shard group cannot serve query rewriting (--prf or a custom rewriter):"
          + " turn it off on the group servers; the router does not split it and would answer differently from"
          + " one server");
    }
  }

  /**
   * What a routed request searches with: the server's options with the request's over them, and the
   * query rewriter they select, by name ({@code none}: none), which the router runs.
   */
  public record Effective(SearchOptions options, String rewriter) {}

  /**
   * The options a routed request searches with, checked as one server checks them (a {@link
   * SettingException} names the option, a 400); whether to rerank is left to the router, which holds the
   * reranker ({@code kiln route --rerank-model}).
   *
   * @throws SettingException also for a rewriter without a name (an object given to the searcher's builder)
   */
  public static Effective effective(Searcher searcher, RequestOptions request) {
    RequestOptions retrieval = new RequestOptions(request.ef(), request.fusion(), request.alpha(),
        request.denseDepth(), request.bm25Depth(), request.minScore(), request.maxDrop(), null, request.rerankDepth(),
        request.feedback(), request.rewriter());
    SearchPipeline pipeline = searcher.pipelineFor(retrieval);
    String rewriter = pipeline.rewriterName(retrieval);
    if (rewriter == null) {
      throw new SettingException(Setting.REWRITER, " of this server has no name a router can run it by: serve"
          + " it from one `kiln serve`, or name a rewriter (--rewriter)");
    }
    return new Effective(pipeline.options(), rewriter);
  }

  /** Phase 2: each leg's candidates for a fused top {@code k}, scored with {@code global}. */
  public static List<Leg> legs(Searcher searcher, String query, SearchMode mode, MetadataFilter filter, int k,
      Global global) {
    return legs(searcher, searcher.options(), query, null, mode, filter, k, global);
  }

  /**
   * {@link #legs(Searcher, String, SearchMode, MetadataFilter, int, Global)} under a request's {@code
   * options}, BM25 scoring {@code bm25Terms} (a rewritten query's weighted terms, in order) when given,
   * else the query's own terms.
   */
  public static List<Leg> legs(Searcher searcher, SearchOptions options, String query, Map<String, Float> bm25Terms,
      SearchMode mode, MetadataFilter filter, int k, Global global) {
    MetadataFilter bound = searcher.bind(filter);
    Query terms = mode == SearchMode.DENSE ? null
        : bm25Terms == null ? searcher.bm25Queries().build(query) : searcher.bm25Queries().build(bm25Terms);
    try {
      List<Leg> legs = new ArrayList<>(2);
      if (mode == SearchMode.DENSE) {
        legs.add(dense(searcher, query, bound, k, global));
      } else if (mode == SearchMode.BM25) {
        legs.add(bm25(searcher, terms, bound, k, global));
      } else {
        // Leg order and depths as Retrievers composes hybrid: dense first, then BM25.
        legs.add(dense(searcher, query, bound, Math.max(k, options.denseDepth()), global));
        legs.add(bm25(searcher, terms, bound, Math.max(k, options.bm25Depth()), global));
      }
      return legs;
    } catch (IOException e) {
      throw new UncheckedIOException("search failed on snapshot " + searcher.snapshotId(), e);
    }
  }

  private static Leg dense(Searcher searcher, String query, MetadataFilter filter, int n, Global global)
      throws IOException {
    return dense(searcher, global.vector() != null ? global.vector() : searcher.embedQuery(query), filter, n, global);
  }

  /** A dense leg of {@code n} for {@code vector}, under {@code filter} (bound), as {@code global} decided. */
  static Leg dense(Searcher searcher, float[] vector, MetadataFilter filter, int n, Global global)
      throws IOException {
    boolean rescore = searcher.manifest().index().encoding().quantized();
    Query f = filter.toQuery();
    IndexSearcher is = searcher.indexSearcher();
    TopDocs top = f != null && global.exact()
        ? FilteredVectorSearch.exact(is, ShardSchema.VECTOR, vector, n, f, rescore)
        : KnnSearch.search(is, ShardSchema.VECTOR, vector, n, global.ef(), f, rescore);
    return new Leg("dense", n, hits(searcher, top));
  }

  /** A BM25 leg of {@code n} for a built query (null: no terms), scored with {@code global}'s statistics. */
  static Leg bm25(Searcher searcher, Query query, MetadataFilter filter, int n, Global global) throws IOException {
    Query q = Retrieval.filtered(query, filter);
    if (q == null) {
      return new Leg("bm25", n, List.of());
    }
    IndexSearcher is = ShardGroupStats.globalStats(searcher, global);
    int m = Math.max(1, Math.min(n, is.getIndexReader().maxDoc()));
    return new Leg("bm25", n, hits(searcher, is.search(q, new TopScoreDocCollectorManager(m, null, m))));
  }

  static List<Hit> hits(Searcher searcher, TopDocs top) {
    int[] shards = searcher.shardNumbers();
    int[] maxDocs = searcher.shardMaxDocs();
    List<Hit> out = new ArrayList<>(top.scoreDocs.length);
    for (ScoreDoc sd : top.scoreDocs) {
      int doc = sd.doc;
      int i = 0;
      while (doc >= maxDocs[i]) {
        doc -= maxDocs[i];
        i++;
      }
      out.add(new Hit(shards[i], doc, sd.score));
    }
    return out;
  }

  /** Phase 3: the stored hits of {@code wanted} (this group's shards only), with their given scores. */
  public static List<SearchHit> fetch(Searcher searcher, List<Hit> wanted) {
    return fetch(searcher, wanted, null);
  }

  /**
   * {@link #fetch(Searcher, List)}, each hit with its calibrated score against {@code calibrate} (the
   * query vector; null: none) as {@link DenseRelevance} computes it, for the router's relevance gate.
   */
  public static List<SearchHit> fetch(Searcher searcher, List<Hit> wanted, float[] calibrate) {
    List<SearchHit> out = new ArrayList<>(wanted.size());
    try {
      HitReader reader = new HitReader(searcher.indexSearcher());
      for (Hit h : wanted) {
        int doc = docOf(searcher, h);
        SearchHit hit = reader.hit(doc, h.score());
        float[] v = calibrate == null ? null : searcher.retrieval().vectorOf(doc);
        out.add(v == null ? hit : hit.withRelevance((double) VectorSimilarityFunction.DOT_PRODUCT.compare(calibrate, v)));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("reading hits failed on snapshot " + searcher.snapshotId(), e);
    }
  }

  /**
   * {@code h}'s doc id in {@code searcher}'s reader.
   *
   * @throws IllegalArgumentException when this group does not serve that shard or doc
   */
  static int docOf(Searcher searcher, Hit h) {
    int[] shards = searcher.shardNumbers();
    int[] maxDocs = searcher.shardMaxDocs();
    int base = 0;
    int i = 0;
    while (i < shards.length && shards[i] != h.shard()) {
      base += maxDocs[i];
      i++;
    }
    if (i == shards.length || h.doc() < 0 || h.doc() >= maxDocs[i]) {
      throw new IllegalArgumentException("shard " + h.shard() + " doc " + h.doc() + " is not served here");
    }
    return base + h.doc();
  }
}
