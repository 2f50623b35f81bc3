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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.search.similarities.BM25Similarity;

/**
 * The part of a search a shard group runs for a router, so that the router's merged answer is the
 * one a single process over every shard gives (docs/ARCHITECTURE.md, "Serving beyond one machine").
 *
 * <ol>
 *   <li>{@link #stats}: what only the whole snapshot knows — the query terms' document and term
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
 * groups calibrate; a snapshot served with query rewriting or a reranker is refused ({@link
 * #checkSplittable}).
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
      @JsonProperty("vector") float[] vector) {}

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
      @JsonProperty("max_drop") Double maxDrop) {
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
    SearchOptions o = searcher.options();
    DenseFeedback d = o.denseFeedback();
    LexicalFeedback l = o.lexicalFeedback();
    return new Plan(searcher.modelFingerprint(), searcher.manifest().shards().size(), o.fusion().label(), o.rrfK(),
        o.alpha(), o.ef(), o.exactFilterRatio(), o.denseDepth(), o.bm25Depth(), d.docs(), d.weight(), l.docs(),
        l.terms(), l.originalWeight(), l.maxDocRatio(), o.feedbackScope().label(),
        Double.isNaN(o.minScore()) ? null : o.minScore(), Double.isNaN(o.maxDrop()) ? null : o.maxDrop());
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
   * Refuses a searcher whose pipeline has a stage the router does not split: query rewriting or a
   * reranker. Hybrid's feedback passes ({@link ShardGroupFeedback}) and the relevance gates (the
   * groups calibrate the hits they fetch, the router gates) are split.
   */
  public static void checkSplittable(Searcher searcher) {
    if (!searcher.splittablePipeline()) {
      throw new IllegalStateException("a shard group cannot serve query rewriting (--prf or a custom rewriter)"
          + " or a reranker (--rerank-model): turn them off on the group servers; the router does not split"
          + " them and would answer differently from one server");
    }
  }

  /** Phase 1: this group's statistics for {@code query} under {@code filter} in {@code mode}. */
  public static Stats stats(Searcher searcher, String query, SearchMode mode, MetadataFilter filter) {
    return stats(searcher, query, mode, filter, true);
  }

  /**
   * {@link #stats}, with the query's embedding only when {@code embed}: the router asks one group
   * for it, since every group searches with that one vector and embedding is most of a stats call.
   */
  public static Stats stats(Searcher searcher, String query, SearchMode mode, MetadataFilter filter,
      boolean embed) {
    IndexSearcher is = searcher.indexSearcher();
    IndexReader reader = is.getIndexReader();
    try {
      Map<String, long[]> terms = new LinkedHashMap<>();
      if (mode != SearchMode.DENSE) {
        for (String t : searcher.terms(query).keySet()) {
          Term term = new Term(ShardSchema.TEXT, t);
          terms.put(t, new long[] {reader.docFreq(term), reader.totalTermFreq(term)});
        }
      }
      Query f = searcher.bind(filter).toQuery();
      long matches = f == null || mode == SearchMode.BM25 ? reader.numDocs() : is.count(f);
      long largest = 0;
      for (LeafReaderContext leaf : reader.leaves()) {
        largest = Math.max(largest, leaf.reader().maxDoc());
      }
      Plan plan = plan(searcher);
      return new Stats(searcher.snapshotId(), terms, reader.getDocCount(ShardSchema.TEXT),
          reader.getSumTotalTermFreq(ShardSchema.TEXT), reader.getSumDocFreq(ShardSchema.TEXT), reader.maxDoc(),
          reader.numDocs(), matches, largest, searcher.shardNumbers(), searcher.shardMaxDocs(), plan,
          // BM25 needs the embedding only to calibrate the hits a relevance gate judges; of several groups only
          // the one the router asks embeds the query (it sends the vector on).
          !embed || (mode == SearchMode.BM25 && plan.gate().isOff()) ? null : searcher.embedQuery(query));
    } catch (IOException e) {
      throw new UncheckedIOException("reading statistics failed on snapshot " + searcher.snapshotId(), e);
    }
  }

  /**
   * The router's side of phase 1: the groups' statistics summed, with the dense path decided as the
   * single process decides it ({@link KnnSearch#resolve} over the largest segment of all;
   * {@link FilteredVectorSearch#choose} over the summed match count).
   *
   * @param filtered whether the request has a filter
   */
  public static Global sum(List<Stats> groups, boolean filtered) {
    int efOption = groups.get(0).plan().ef();
    double exactRatio = groups.get(0).plan().exactRatio();
    Map<String, long[]> terms = new LinkedHashMap<>();
    long docCount = 0;
    long sumTtf = 0;
    long sumDf = 0;
    long maxDoc = 0;
    long numDocs = 0;
    long matches = 0;
    long largest = 0;
    float[] vector = null;
    for (Stats s : groups) {
      if (vector == null) {
        vector = s.vector();
      }
      s.terms().forEach((t, v) -> {
        long[] acc = terms.computeIfAbsent(t, x -> new long[2]);
        acc[0] += v[0];
        acc[1] += v[1];
      });
      docCount += s.docCount();
      sumTtf += s.sumTotalTermFreq();
      sumDf += s.sumDocFreq();
      maxDoc += s.maxDoc();
      numDocs += s.numDocs();
      matches += s.filterMatches();
      largest = Math.max(largest, s.largestSegment());
    }
    int ef = efOption > 0 ? efOption : KnnSearch.efFor(largest);
    boolean exact = filtered && matches <= (long) Math.floor(exactRatio * numDocs);
    // One group's embedding for all (the first that sent one): a model's output can differ in the last
    // bits between processes (or batches), and every group must walk its graph with the same vector.
    return new Global(terms, docCount, sumTtf, sumDf, maxDoc, ef, exact, vector);
  }

  /** Phase 2: each leg's candidates for a fused top {@code k}, scored with {@code global}. */
  public static List<Leg> legs(Searcher searcher, String query, SearchMode mode, MetadataFilter filter, int k,
      Global global) {
    MetadataFilter bound = searcher.bind(filter);
    SearchOptions options = searcher.options();
    try {
      List<Leg> legs = new ArrayList<>(2);
      if (mode == SearchMode.DENSE) {
        legs.add(dense(searcher, query, bound, k, global));
      } else if (mode == SearchMode.BM25) {
        legs.add(bm25(searcher, query, bound, k, global));
      } else {
        // Leg order and depths as Retrievers composes hybrid: dense first, then BM25.
        legs.add(dense(searcher, query, bound, Math.max(k, options.denseDepth()), global));
        legs.add(bm25(searcher, query, bound, Math.max(k, options.bm25Depth()), global));
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

  private static Leg bm25(Searcher searcher, String query, MetadataFilter filter, int n, Global global)
      throws IOException {
    return bm25(searcher, searcher.bm25Queries().build(query), filter, n, global);
  }

  /** A BM25 leg of {@code n} for a built query (null: no terms), scored with {@code global}'s statistics. */
  static Leg bm25(Searcher searcher, Query query, MetadataFilter filter, int n, Global global) throws IOException {
    Query q = Retrieval.filtered(query, filter);
    if (q == null) {
      return new Leg("bm25", n, List.of());
    }
    IndexSearcher is = globalStats(searcher, global);
    int m = Math.max(1, Math.min(n, is.getIndexReader().maxDoc()));
    return new Leg("bm25", n, hits(searcher, is.search(q, new TopScoreDocCollectorManager(m, null, m))));
  }

  /** A searcher over {@code searcher}'s shards that scores BM25 with {@code global}'s statistics. */
  static IndexSearcher globalStats(Searcher searcher, Global global) {
    IndexSearcher is = new GlobalStatsSearcher(searcher.indexSearcher().getIndexReader(), global);
    is.setSimilarity(new BM25Similarity(searcher.manifest().index().bm25K1(), searcher.manifest().index().bm25B()));
    return is;
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

  /**
   * A searcher that scores BM25 with the router's summed statistics instead of its own shards': the
   * same idf and average length as one process over every shard, as Elasticsearch's DFS phase does.
   */
  private static final class GlobalStatsSearcher extends IndexSearcher {
    private final Global global;

    GlobalStatsSearcher(IndexReader reader, Global global) {
      super(reader, SearchThreads.shared());
      this.global = global;
    }

    @Override
    public TermStatistics termStatistics(Term term, int docFreq, long totalTermFreq) throws IOException {
      long[] g = global.terms().get(term.text());
      return g == null || g[0] == 0 ? super.termStatistics(term, docFreq, totalTermFreq)
          : new TermStatistics(term.bytes(), g[0], g[1]);
    }

    @Override
    public CollectionStatistics collectionStatistics(String field) throws IOException {
      if (!field.equals(ShardSchema.TEXT) || global.docCount() == 0) {
        return super.collectionStatistics(field);
      }
      return new CollectionStatistics(field, global.maxDoc(), global.docCount(), global.sumTotalTermFreq(),
          global.sumDocFreq());
    }
  }
}
