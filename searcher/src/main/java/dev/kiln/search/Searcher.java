package dev.kiln.search;

import dev.kiln.index.Analyzers;
import dev.kiln.index.ShardSchema;
import dev.kiln.search.context.AssembledContext;
import dev.kiln.search.context.ContextAssembler;
import dev.kiln.search.context.ParentLookup;
import dev.kiln.search.filter.FilteredVectorSearch;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.search.rerank.Reranker;
import dev.kiln.search.rewrite.QueryRewriter;
import dev.kiln.search.rewrite.RewrittenQuery;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.util.IOUtils;

/**
 * Searches one published snapshot, as a composition of stages, each in its own class: query rewriting
 * ({@link QueryRewriter}, for retrievers that read terms) → a first-stage {@link Retriever} per mode
 * ({@link Retrievers}: dense, BM25, or hybrid over any number of legs fused by RRF or min-max blend),
 * the metadata filter applied inside each ({@link MetadataFilter}: inside the HNSW walk and to BM25) →
 * rerank ({@link RerankStage}, when configured) or calibration ({@link DenseRelevance}, when a gate
 * needs it) → relevance gates ({@link RelevanceGate}) → context ({@link ContextAssembler}).
 *
 * <p>Opened, and verified, by {@link #builder()} only. Instances are thread-safe; share one per
 * snapshot. Shards are searched in parallel on a shared pool ({@link SearchThreads}), queries are
 * embedded by a pool of model instances ({@link SearchOptions#queryEmbedders()}), and stored fields
 * are read only for the hits returned ({@link HitReader}).
 */
public final class Searcher implements RetrievalPath {
  private final String snapshotId;
  private final Manifest manifest;
  private final ShardReaders shards;
  private final SnapshotIndexSearcher searcher;
  private final Analyzer analyzer;
  private final Analyzer chinese;
  private final Bm25QueryBuilder bm25Queries;
  private final QueryEmbedder embedder;
  private final Retrieval retrieval;
  /** The stages the searcher's own options compose; a request with options of its own derives its own. */
  private final SearchPipeline pipeline;
  private final Reranker reranker;
  private final DenseRelevance relevance;
  private final SnapshotLookups lookups;
  /** Why dense search is refused on this snapshot (stored vectors disagree with the manifest), or null. */
  private final String vectorsProblem;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final boolean hashedAtOpen;
  private final ShardSelection shardSelection;

  /** Owns {@code shards}, {@code analyzer} and {@code reranker} from here: {@link SearcherBuilder} opens them. */
  Searcher(Path snapshotsRoot, Manifest manifest, ShardReaders shards, Analyzer analyzer,
      SearchOptions options, Reranker reranker, QueryRewriter customRewriter, boolean hashedAtOpen,
      ShardSelection shardSelection, QueryEmbedder embedder) {
    this.hashedAtOpen = hashedAtOpen;
    this.shardSelection = shardSelection;
    this.snapshotId = manifest.id();
    this.manifest = manifest;
    this.shards = shards;
    this.analyzer = analyzer;
    this.searcher = SearchThreads.searcher(shards.reader());
    this.searcher.setSimilarity(
        new BM25Similarity(manifest.index().bm25K1(), manifest.index().bm25B()));
    String cn = manifest.index().chineseAnalyzer();
    this.chinese = cn == null ? null : Analyzers.forName(cn);
    this.bm25Queries = new Bm25QueryBuilder(analyzer, chinese, ShardSchema.TEXT);
    this.embedder = embedder;
    this.vectorsProblem = vectorsProblem(shards, manifest);
    this.pipeline = SearchPipeline.of(new SearchPipeline.Snapshot(searcher, bm25Queries,
        manifest.index().encoding().quantized(), reranker, customRewriter), options);
    this.retrieval = pipeline.retrieval();
    this.reranker = reranker;
    this.relevance = new DenseRelevance(searcher, retrieval, snapshotId);
    this.lookups = new SnapshotLookups(snapshotsRoot, manifest, shardSelection);
  }

  /** Settings for opening a snapshot: root, snapshot id, options; {@link SearcherBuilder#build()} opens it. */
  public static SearcherBuilder builder() {
    return new SearcherBuilder();
  }

  /** {@code builder().root(root).build()}: the snapshot {@code CURRENT} points to, default options. */
  public static Searcher open(Path snapshotsRoot) {
    return builder().root(snapshotsRoot).build();
  }

  public String snapshotId() {
    return snapshotId;
  }

  /**
   * Whether every file this searcher reads was hashed against the manifest when it was opened
   * (false: some were taken on the word of the snapshot's {@code VERIFIED} record).
   */
  public boolean hashedAtOpen() {
    return hashedAtOpen;
  }

  public Manifest manifest() {
    return manifest;
  }

  /** The shards this searcher opened: all, or a shard group's range. */
  public ShardSelection shardSelection() {
    return shardSelection;
  }

  /** The shard numbers opened, in doc-id order. */
  int[] shardNumbers() {
    return shards.shardNumbers();
  }

  /** The maxDoc of each opened shard, in doc-id order. */
  int[] shardMaxDocs() {
    return shards.shardMaxDocs();
  }

  /** The BM25 query builder of this snapshot's analysis. */
  Bm25QueryBuilder bm25Queries() {
    return bm25Queries;
  }

  /**
   * Its query rewriter, if any, has a name a router can run it by ({@code --prf}'s RM3, one of {@link
   * dev.kiln.search.rewrite.QueryRewriters}): the stages a router splits across shard groups (hybrid's
   * feedback passes, the relevance gates, the reranker and the rewriter, which the router runs) are all
   * it runs.
   */
  boolean splittablePipeline() {
    return pipeline.rewriterName(RequestOptions.NONE) != null;
  }

  /** The name of the rewriter the searcher's own options run ({@link SearchPipeline#rewriterName}). */
  String rewriterName() {
    return pipeline.rewriterName(RequestOptions.NONE);
  }

  /** The stages a request with {@code options} runs (the searcher's own when it sets none); checked. */
  SearchPipeline pipelineFor(RequestOptions options) {
    return pipeline.forRequest(options);
  }

  /** The Lucene passes of the searcher's own options. */
  Retrieval retrieval() {
    return retrieval;
  }

  public SearchOptions options() {
    return pipeline.options();
  }

  /** Chunks in the snapshot. */
  public int chunkCount() {
    return shards.reader().numDocs();
  }

  /** Runs the whole chain for one request; only the hits it returns are read whole. */
  @Override
  public SearchResponse search(SearchRequest request) {
    return search(request, null);
  }

  /**
   * As {@link #search(SearchRequest)}, with the query's embedding under this snapshot's model already
   * computed (a federated search embeds a query once per model, not once per root); null embeds it
   * here. It is used for the query text itself, not for a rewritten one.
   */
  public SearchResponse search(SearchRequest request, float[] queryVector) {
    return run(request, queryVector, false, false);
  }

  /**
   * As {@link #search(SearchRequest, float[])}, with every hit's calibrated score computed whether
   * or not a gate is set ({@link SearchHit#relevance()}): what a federated search puts roots on one
   * scale with.
   */
  public SearchResponse searchCalibrated(SearchRequest request, float[] queryVector) {
    return run(request, queryVector, true, false);
  }

  /**
   * As {@link #searchCalibrated}, with the relevance gate left out: every hit the request's gate would
   * judge, each with its calibrated score, so that a caller can show what {@link #gate} keeps and drops.
   */
  public SearchResponse searchUngated(SearchRequest request) {
    return run(request, null, true, true);
  }

  /** The relevance gate {@code request}'s hits pass through: the server's, or its own options'. */
  public RelevanceGate gate(SearchRequest request) {
    return pipeline.forRequest(request.options()).gate();
  }

  /** Whether a cross-encoder reranks {@code request}'s hits, so that {@link SearchHit#relevance()} is its score. */
  public boolean reranks(SearchRequest request) {
    return pipeline.forRequest(request.options()).rerank() != null;
  }

  /**
   * {@code calibrate}: every hit's calibrated score even where no gate needs it; {@code ungated}: the
   * gate left out (its scores still computed).
   */
  private SearchResponse run(SearchRequest request, float[] queryVector, boolean calibrate, boolean ungated) {
    int k = request.k();
    SearchPipeline stages = pipeline.forRequest(request.options());
    RelevanceGate gate = stages.gate();
    RerankStage rerank = stages.rerank();
    calibrate |= !gate.isOff();
    MetadataFilter filter = bind(request.filter());
    Retriever retriever = stages.retrievers().forMode(request.mode());
    RetrieverQuery query = prepare(stages, retriever, request.query(), queryVector, filter);
    // With a reranker, retrieval feeds it its depth of candidates; it then cuts to k.
    int n = rerank == null ? k : rerank.candidates(k);
    List<SearchHit> hits = read(retriever, query, n, filter);
    if (rerank != null) {
      hits = rerank.apply(request.query(), hits, k);
    } else if (calibrate) {
      // The gate compares a calibrated score: the dense similarity, whatever ranked the hits.
      float[] given = query.reusable(queryVector);
      hits = retriever.scoresCalibrated() ? DenseRelevance.ofScores(hits)
          : relevance.apply(hits, checkDimension(query.vector() != null ? query.vector()
              : given != null ? given : embedder.embed(request.query())));
    }
    if (!ungated) {
      hits = gate.apply(hits);
    }
    return new SearchResponse(snapshotId, request.mode(), hits);
  }

  /** {@link #prepare(SearchPipeline, Retriever, String, float[], MetadataFilter)} under the searcher's own stages. */
  RetrieverQuery prepare(Retriever retriever, String text, float[] queryVector, MetadataFilter filter) {
    return prepare(pipeline, retriever, text, queryVector, filter);
  }

  /**
   * The query as {@code retriever} reads it: rewritten if it reads terms, or reads a vector and the
   * rewriter may change the dense text (a HyDE passage is embedded as a passage); embedded only if it
   * reads a vector ({@code queryVector}, when given, is the text's own embedding). {@code filter}, bound
   * to this snapshot, is the one a rewriter's first pass runs under.
   */
  private RetrieverQuery prepare(SearchPipeline stages, Retriever retriever, String text, float[] queryVector,
      MetadataFilter filter) {
    QueryRewriter rewriter = stages.rewriter();
    RewrittenQuery rewritten = retriever.usesTerms() || (retriever.usesVector() && rewriter.rewritesDenseText())
        ? rewriter.rewrite(text,
            new SnapshotRewriteContext(searcher, bm25Queries, stages.retrieval(), filter, snapshotId))
        : RetrieverQuery.unrewritten(text);
    float[] vector = null;
    if (retriever.usesVector()) {
      float[] given = new RetrieverQuery(text, rewritten, null).reusable(queryVector);
      vector = checkDimension(given != null ? given
          : rewritten.densePassage() ? embedder.embedPassage(rewritten.denseText())
          : embedder.embed(rewritten.denseText()));
    }
    return new RetrieverQuery(text, rewritten, vector);
  }

  /** The first-stage retriever {@code mode} runs on this snapshot. */
  Retriever retriever(SearchMode mode) {
    return pipeline.retrievers().forMode(mode);
  }

  /** The snapshot's BM25 analysis of {@code text}: term → count. */
  Map<String, Integer> terms(String text) {
    return bm25Queries.terms(text);
  }

  /** The one Lucene searcher over this snapshot's shards, whose doc ids {@link Candidate}s are. */
  IndexSearcher indexSearcher() {
    return searcher;
  }

  /** The retriever's candidates, read whole: the only stored documents a request reads. */
  List<SearchHit> read(Retriever retriever, RetrieverQuery query, int n, MetadataFilter filter) {
    try {
      HitReader reader = new HitReader(searcher);
      List<SearchHit> hits = new ArrayList<>();
      for (Candidate c : retriever.retrieve(query, n, filter)) {
        // Hybrid's lexical feedback has read most of its hits whole already.
        hits.add(c.stored() != null ? HitReader.toHit(c.stored(), c.score()) : reader.hit(c.doc(), c.score()));
      }
      return hits;
    } catch (IOException e) {
      throw new UncheckedIOException("search failed on snapshot " + snapshotId, e);
    }
  }

  @Override
  public String label() {
    return snapshotId;
  }

  /** The fingerprint of the model this snapshot's vectors (and its queries) are embedded with. */
  public String modelFingerprint() {
    String f = manifest.model().fingerprint();
    return f != null ? f : manifest.model().source();
  }

  /**
   * Runs {@code request} and packs its hits into a token budget counted with the snapshot model's
   * tokenizer (see {@link ContextAssembler}).
   */
  public AssembledContext context(SearchRequest request, int tokenBudget) {
    SearchResponse response = search(request);
    ContextAssembler assembler = new ContextAssembler(this::countTokens, parents(), tokenBudget);
    return assembler.assemble(response);
  }

  /**
   * Parents of this snapshot's chunks, read from its docstore (parent-child snapshots); for a
   * snapshot without one every chunk stands for itself.
   */
  public ParentLookup parents() {
    return lookups.parents();
  }

  /** Model tokens in {@code text}, counted with the snapshot model's own tokenizer. */
  public int countTokens(String text) {
    return lookups.countTokens(text);
  }

  /**
   * Nearest chunks to a query vector by dot product. The vector must come from the snapshot's model
   * (and be unit length, as that model's vectors are).
   */
  public List<SearchHit> dense(float[] queryVector, int k) {
    return dense(queryVector, k, MetadataFilter.none());
  }

  /** {@link #dense(float[], int)} among chunks passing {@code filter}. */
  public List<SearchHit> dense(float[] queryVector, int k, MetadataFilter filter) {
    checkK(k);
    checkDimension(queryVector);
    try {
      return HitReader.read(searcher, retrieval.dense(queryVector, k, bind(filter)));
    } catch (IOException e) {
      throw new UncheckedIOException("search failed on snapshot " + snapshotId, e);
    }
  }

  /**
   * Dense search with {@link SearchOptions#denseFeedback()}: a first pass, then the query moved
   * towards the vectors of its top documents' best chunks, then the second pass that is returned.
   */
  public List<SearchHit> denseWithFeedback(float[] queryVector, int k, MetadataFilter filter) {
    checkK(k);
    checkDimension(queryVector);
    try {
      return HitReader.read(searcher, retrieval.denseWithFeedback(queryVector, k, bind(filter)));
    } catch (IOException e) {
      throw new UncheckedIOException("search failed on snapshot " + snapshotId, e);
    }
  }

  /** The stored vector of a chunk, or empty when the snapshot holds no chunk with that id. */
  public Optional<float[]> chunkVector(String chunkId) {
    try {
      TopDocs top = searcher.search(new TermQuery(new Term(ShardSchema.CHUNK_ID, chunkId)), 1);
      if (top.scoreDocs.length == 0) {
        return Optional.empty();
      }
      return Optional.ofNullable(retrieval.vectorOf(top.scoreDocs[0].doc));
    } catch (IOException e) {
      throw new UncheckedIOException("reading a vector failed on snapshot " + snapshotId, e);
    }
  }

  /** Exact (brute-force) nearest chunks passing {@code filter}: the reference for ANN recall. */
  public List<SearchHit> exactDense(float[] queryVector, int k, MetadataFilter filter) {
    checkK(k);
    checkDimension(queryVector);
    try {
      return HitReader.read(searcher,
          FilteredVectorSearch.exact(searcher, ShardSchema.VECTOR, queryVector, k, bind(filter).toQuery(),
              manifest.index().encoding().quantized()));
    } catch (IOException e) {
      throw new UncheckedIOException("search failed on snapshot " + snapshotId, e);
    }
  }

  /** The query embedding the dense path uses. */
  public float[] embedQuery(String query) {
    return embedder.embed(query);
  }

  /** Query-embedding model instances loaded so far: 0 until a search first needs the query's vector. */
  public int queryEmbeddersLoaded() {
    return embedder.loaded();
  }

  /** Query vectors served from the query cache ({@link SearchOptions#queryCache()}) so far. */
  public long queryCacheHits() {
    return embedder.cacheHits();
  }

  /** Queries the query cache did not hold so far (each embedded by the model). */
  public long queryCacheMisses() {
    return embedder.cacheMisses();
  }

  /** Queries this searcher embedded so far (a query's vector given to it, as a router gives it, is not counted). */
  public long queriesEmbedded() {
    return embedder.queriesEmbedded();
  }

  /** Bag-of-words BM25 over chunk text; a query with no terms left after analysis finds nothing. */
  public List<SearchHit> bm25(String query, int k) {
    return bm25(query, k, MetadataFilter.none());
  }

  /** {@link #bm25(String, int)} among chunks passing {@code filter}. */
  public List<SearchHit> bm25(String query, int k, MetadataFilter filter) {
    checkK(k);
    return run(bm25Queries.build(query), k, bind(filter));
  }

  /**
   * BM25 over already analysed terms with their query weights, as a {@link QueryRewriter} produces
   * them, among chunks passing {@code filter}.
   */
  public List<SearchHit> bm25(Map<String, Float> terms, int k, MetadataFilter filter) {
    checkK(k);
    return run(bm25Queries.build(terms), k, bind(filter));
  }

  /**
   * The filter as this snapshot reads it: its ranges bound to the types the manifest records.
   *
   * @throws dev.kiln.search.filter.FilterException for a range on a key this snapshot did not index for ranges
   */
  public MetadataFilter bind(MetadataFilter filter) {
    return filter.bind(manifest.rangeTypes(), snapshotId);
  }

  private List<SearchHit> run(Query query, int k, MetadataFilter filter) {
    try {
      return HitReader.read(searcher, retrieval.bm25(query, k, filter));
    } catch (IOException e) {
      throw new UncheckedIOException("search failed on snapshot " + snapshotId, e);
    }
  }

  /** {@code queryVector}, once checked against the snapshot's dimension and stored vectors. */
  private float[] checkDimension(float[] queryVector) {
    int dimension = manifest.model().dimension();
    if (queryVector.length != dimension) {
      throw new IllegalArgumentException("query vector has " + queryVector.length
          + " dimensions; snapshot " + snapshotId + " holds " + dimension + "-d vectors");
    }
    if (vectorsProblem != null) {
      throw new SnapshotException(vectorsProblem);
    }
    return queryVector;
  }

  /** Checked once at open, not per query: only dense search needs the stored vectors. */
  private static String vectorsProblem(ShardReaders shards, Manifest manifest) {
    try {
      ShardReaders.checkVectors(shards.reader(), manifest);
      return null;
    } catch (SnapshotException e) {
      return e.getMessage();
    }
  }

  private static void checkK(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1, was " + k);
    }
  }

  @Override
  public void close() throws IOException {
    if (closed.compareAndSet(false, true)) {
      IOUtils.close(embedder, searcher, shards, analyzer, chinese, reranker, lookups);
    }
  }
}
