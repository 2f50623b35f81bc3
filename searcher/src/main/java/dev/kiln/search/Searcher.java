package dev.kiln.search;

import dev.kiln.index.Analyzers;
import dev.kiln.index.ShardSchema;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.search.context.AssembledContext;
import dev.kiln.search.context.ContextAssembler;
import dev.kiln.search.context.ParentLookup;
import dev.kiln.search.parents.ParentStore;
import dev.kiln.search.filter.FilteredVectorSearch;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.search.fusion.Fusion;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.fusion.MinMaxBlend;
import dev.kiln.search.fusion.ReciprocalRankFusion;
import dev.kiln.search.rerank.CrossEncoderReranker;
import dev.kiln.search.rerank.Reranker;
import dev.kiln.search.rewrite.QueryRewriter;
import dev.kiln.search.rewrite.RewriteContext;
import dev.kiln.search.rewrite.RewrittenQuery;
import dev.kiln.search.rewrite.Rm3Rewriter;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotStore;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.util.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Searches one published snapshot. The chain, each stage in its own class: query rewriting ({@link
 * QueryRewriter}) → metadata filter ({@link MetadataFilter}, applied inside the HNSW walk and to
 * BM25) → recall (dense ∥ BM25, {@link FilteredVectorSearch}) → fusion (RRF or min-max blend) →
 * rerank ({@link Reranker}, when configured) → relevance gates ({@link RelevanceGate}) → context
 * ({@link ContextAssembler}).
 *
 * <p>Opening checks the manifest's structure and every file it reads against the manifest's sizes
 * (and, unless a {@code VERIFIED} record made at publish or download covers this very manifest,
 * SHA-256) before any of it is read, so a half-copied or corrupted snapshot is refused rather than
 * served; {@code kiln snapshots verify} re-checks every byte on demand. The snapshot is searched as it
 * was built: with the analyzer and BM25 parameters its manifest records and with the embedding
 * model it names.
 *
 * <p>Instances are thread-safe; share one per snapshot. Shards are searched in parallel on a shared
 * pool ({@link SearchThreads}), queries are embedded by a pool of model instances ({@link
 * SearchOptions#queryEmbedders()}), and stored fields are read only for the hits returned ({@link
 * Retrieval}).
 */
public final class Searcher implements RetrievalPath {
  private static final Logger LOG = LoggerFactory.getLogger(Searcher.class);

  private final String snapshotId;
  private final Manifest manifest;
  private final SearchOptions options;
  private final ShardReaders shards;
  private final IndexSearcher searcher;
  private final Analyzer analyzer;
  private final Analyzer chinese;
  private final Bm25QueryBuilder bm25Queries;
  private final QueryEmbedder embedder;
  private final Retrieval retrieval;
  private final QueryRewriter rewriter;
  private final Reranker reranker;
  private final RelevanceGate gate;
  /** Why dense search is refused on this snapshot (stored vectors disagree with the manifest), or null. */
  private final String vectorsProblem;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Path snapshotsRoot;
  private ParentStore parentStore; // opened on first use, guarded by this
  private ModelTokenizer tokenizer;

  /** The rerank stage is skipped without a model; say so once per process, not per snapshot. */
  private static final AtomicBoolean RERANK_SKIP_LOGGED = new AtomicBoolean();

  private Searcher(Path snapshotsRoot, Manifest manifest, ShardReaders shards, Analyzer analyzer,
      SearchOptions options, Reranker reranker, QueryRewriter customRewriter) {
    this.snapshotsRoot = snapshotsRoot;
    this.snapshotId = manifest.id();
    this.manifest = manifest;
    this.options = options;
    this.shards = shards;
    this.analyzer = analyzer;
    this.searcher = shardSearcher(shards);
    this.searcher.setSimilarity(
        new BM25Similarity(manifest.index().bm25K1(), manifest.index().bm25B()));
    String cn = manifest.index().chineseAnalyzer();
    this.chinese = cn == null ? null : Analyzers.forName(cn);
    this.bm25Queries = new Bm25QueryBuilder(analyzer, chinese, ShardSchema.TEXT);
    this.embedder = new QueryEmbedder(manifest, options.queryEmbedders());
    this.vectorsProblem = vectorsProblem(shards, manifest);
    Fusion fusion = options.fusion() == FusionMethod.RRF
        ? new ReciprocalRankFusion(options.rrfK())
        : new MinMaxBlend(options.alpha());
    this.retrieval = new Retrieval(searcher, bm25Queries, options, fusion,
        manifest.index().encoding().quantized());
    this.rewriter = customRewriter != null ? customRewriter
        : options.prf() ? new Rm3Rewriter() : QueryRewriter.IDENTITY;
    this.reranker = reranker;
    this.gate = new RelevanceGate(options.minScore(), options.maxDrop());
    if (reranker == null && RERANK_SKIP_LOGGED.compareAndSet(false, true)) {
      LOG.info("rerank: skipped (no --rerank-model configured)");
    }
  }

  /**
   * One searcher over every shard's segments, each segment its own slice on the shared {@link
   * SearchThreads} pool: a query's shards are searched in parallel, and Lucene merges the per-slice
   * top hits by score, then doc id, so results are those of a sequential search.
   */
  private static IndexSearcher shardSearcher(ShardReaders shards) {
    java.util.concurrent.ExecutorService pool = SearchThreads.shared();
    if (pool == null) {
      // One thread: Lucene's own search, as before the pool existed; slices would only add merges.
      return new IndexSearcher(shards.reader());
    }
    return new IndexSearcher(shards.reader(), pool) {
      @Override
      protected LeafSlice[] slices(List<LeafReaderContext> leaves) {
        return slices(leaves, Integer.MAX_VALUE, 1, false);
      }
    };
  }

  /**
   * Opens the snapshot {@code CURRENT} points to under a snapshots root given as a URI ({@code
   * file:///data/snapshots}) or a plain path; the returned searcher is thread-safe and must be
   * closed.
   */
  public static Searcher open(URI snapshotsRoot) {
    return open(snapshotsRoot, SearchOptions.defaults());
  }

  /** {@link #open(URI)} with options. */
  public static Searcher open(URI snapshotsRoot, SearchOptions options) {
    return open(toPath(snapshotsRoot), null, options);
  }

  /** A local path for a snapshots root URI: {@code file:} or no scheme; others are refused. */
  public static Path toPath(URI uri) {
    if (uri.getScheme() == null) {
      return Path.of(uri.getPath());
    }
    if (uri.getScheme().equals("file")) {
      return Path.of(uri);
    }
    throw new SnapshotException("the searcher reads snapshots from the local file system (file:);"
        + " copy " + uri + " locally first");
  }

  /** Opens the snapshot {@code CURRENT} points to, with default options. */
  public static Searcher open(Path snapshotsRoot) {
    return open(snapshotsRoot, null, SearchOptions.defaults());
  }

  /** Opens a snapshot by id ({@code null} follows {@code CURRENT}), with default options. */
  public static Searcher open(Path snapshotsRoot, String snapshotId) {
    return open(snapshotsRoot, snapshotId, SearchOptions.defaults());
  }

  /**
   * Opens and verifies a snapshot.
   *
   * @param snapshotId the snapshot to open, or {@code null} for the one {@code CURRENT} points to
   * @throws SnapshotException when the snapshot is missing, fails verification or cannot be read
   */
  public static Searcher open(Path snapshotsRoot, String snapshotId, SearchOptions options) {
    return open(snapshotsRoot, snapshotId, options, null);
  }

  /**
   * {@link #open(Path, String, SearchOptions)} with a custom query rewriter (an LLM rewriter, say)
   * in place of the one {@code options} selects; it must be thread-safe.
   */
  public static Searcher open(Path snapshotsRoot, String snapshotId, SearchOptions options,
      QueryRewriter rewriter) {
    Objects.requireNonNull(options, "options");
    SnapshotStore store = new SnapshotStore(snapshotsRoot);
    String id = snapshotId == null ? store.currentId() : snapshotId;
    SnapshotStore.Opened opened;
    try {
      // Structure and sizes always; SHA-256 only when no VERIFIED record covers this manifest, and
      // never for files the searcher does not read (stored vectors).
      opened = store.openForServing(id);
    } catch (IllegalArgumentException e) {
      // The layout rejects ids that could escape the root; for a caller that is just a bad id.
      throw new SnapshotException(e.getMessage(), e);
    }
    Manifest manifest = opened.manifest();
    Analyzer analyzer;
    try {
      analyzer = Analyzers.forName(manifest.index().analyzer());
    } catch (IllegalArgumentException e) {
      throw new SnapshotException("snapshot " + id + ": " + e.getMessage(), e);
    }
    ShardReaders shards;
    try {
      shards = ShardReaders.open(store.layout().snapshotDir(id), manifest);
    } catch (RuntimeException e) {
      IOUtils.closeWhileHandlingException(analyzer);
      throw e;
    }
    Reranker reranker = null;
    Searcher searcher;
    try {
      reranker = options.reranker() == null ? null : CrossEncoderReranker.open(options.reranker());
      searcher = new Searcher(store.layout().root(), manifest, shards, analyzer, options, reranker, rewriter);
    } catch (RuntimeException | Error e) {
      // Whatever failed, nothing opened here may outlive it: a reload that fails every poll would
      // otherwise leak the shards' memory maps each time.
      IOUtils.closeWhileHandlingException(shards, analyzer, reranker);
      if (e instanceof IllegalArgumentException iae) {
        throw new SnapshotException("snapshot " + id + ": " + iae.getMessage(), iae);
      }
      throw e;
    }
    LOG.info("opened snapshot {}: {} shard(s), {} chunks, analyzer {}, model {}; files {}; {}", id,
        manifest.shards().size(), shards.reader().numDocs(), manifest.index().analyzer(),
        manifest.model().name(), opened.hashed() ? "hashed (no VERIFIED record for this manifest)"
            : "sizes checked (VERIFIED record)", options.describe());
    return searcher;
  }

  public String snapshotId() {
    return snapshotId;
  }

  public Manifest manifest() {
    return manifest;
  }

  public SearchOptions options() {
    return options;
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
    return run(request, queryVector, !gate.isOff());
  }

  /**
   * As {@link #search(SearchRequest, float[])}, with every hit's calibrated score computed whether
   * or not a gate is set ({@link SearchHit#relevance()}): what a federated search puts roots on one
   * scale with.
   */
  public SearchResponse searchCalibrated(SearchRequest request, float[] queryVector) {
    return run(request, queryVector, true);
  }

  private SearchResponse run(SearchRequest request, float[] queryVector, boolean calibrate) {
    int k = request.k();
    MetadataFilter filter = bind(request.filter());
    SearchMode mode = request.mode();
    RewrittenQuery rewritten = mode == SearchMode.DENSE
        ? new RewrittenQuery(request.query(), Map.of())
        : rewriter.rewrite(request.query(), rewriteContext(filter));
    float[] given = queryVector != null && rewritten.denseText().equals(request.query()) ? queryVector : null;
    // With a reranker, retrieval feeds it its depth of candidates; it then cuts to k.
    int n = reranker == null ? k : Math.max(k, options.rerankDepth());
    float[] vector = mode == SearchMode.BM25 ? null : given != null ? given : embedder.embed(rewritten.denseText());
    List<SearchHit> hits = switch (mode) {
      case DENSE -> dense(vector, n, filter);
      case BM25 -> bm25(rewritten.bm25Terms(), n, filter);
      case HYBRID -> hybrid(request.query(), rewritten, vector, n, filter);
    };
    if (reranker != null) {
      hits = rerank(request.query(), hits, k);
    } else if (calibrate) {
      // The gate compares a calibrated score: the dense similarity, whatever ranked the hits.
      hits = withDenseRelevance(hits, mode == SearchMode.DENSE ? null
          : vector != null ? vector : given != null ? given : embedder.embed(request.query()));
    }
    hits = gate.apply(hits);
    return new SearchResponse(snapshotId, mode, hits);
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
   * Each hit with its calibrated score: {@code (1 + cosine) / 2} of its stored vector and the query's
   * (Lucene's dot-product score, as dense search ranks by); {@code query} null means the hits are
   * dense hits already scored that way.
   */
  private List<SearchHit> withDenseRelevance(List<SearchHit> hits, float[] query) {
    if (query == null) {
      return hits.stream().map(h -> h.withRelevance(h.score())).toList();
    }
    checkDimension(query);
    if (hits.isEmpty()) {
      return hits;
    }
    // One lookup of every hit's chunk id, then each doc's stored float32 vector: an eval at depth 1000
    // would otherwise pay a term query per hit.
    Map<String, Double> relevance = new HashMap<>();
    try {
      List<org.apache.lucene.util.BytesRef> ids = hits.stream()
          .map(h -> new org.apache.lucene.util.BytesRef(h.chunkId())).toList();
      TopDocs docs = searcher.search(new org.apache.lucene.search.TermInSetQuery(ShardSchema.CHUNK_ID, ids),
          hits.size());
      HitReader reader = new HitReader(searcher);
      for (ScoreDoc sd : docs.scoreDocs) {
        float[] v = retrieval.vectorOf(sd.doc);
        if (v != null) {
          relevance.putIfAbsent(reader.chunkId(sd.doc),
              (double) org.apache.lucene.index.VectorSimilarityFunction.DOT_PRODUCT.compare(query, v));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading vectors failed on snapshot " + snapshotId, e);
    }
    List<SearchHit> out = new ArrayList<>(hits.size());
    for (SearchHit h : hits) {
      Double r = relevance.get(h.chunkId());
      out.add(r == null ? h : h.withRelevance(r));
    }
    return out;
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
    if (manifest.docstore() == null) {
      return ParentLookup.NONE;
    }
    return hit -> {
      String parentId = hit.metadata().get("parent_id");
      if (parentId == null) {
        return Optional.empty();
      }
      return parentStore().get(parentId).map(p -> new ParentLookup.Parent(p.parentId(), p.text()));
    };
  }

  private synchronized ParentStore parentStore() {
    if (closed.get()) {
      throw new IllegalStateException("searcher for snapshot " + snapshotId + " is closed");
    }
    if (parentStore == null) {
      parentStore = ParentStore.open(snapshotsRoot, manifest);
    }
    return parentStore;
  }

  /** Model tokens in {@code text}, counted with the snapshot model's own tokenizer. */
  public int countTokens(String text) {
    ModelTokenizer t;
    synchronized (this) {
      if (closed.get()) {
        throw new IllegalStateException("searcher for snapshot " + snapshotId + " is closed");
      }
      if (tokenizer == null) {
        tokenizer = ModelTokenizer.open(ModelRegistry.resolve(manifest.model().source()));
      }
      t = tokenizer;
    }
    return t.countTokens(text);
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
      HitReader reader = new HitReader(searcher);
      return reader.hits(retrieval.denseWithFeedback(queryVector, k, bind(filter), reader));
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

  private RewriteContext rewriteContext(MetadataFilter filter) {
    return new RewriteContext() {
      @Override
      public Map<String, Integer> analyze(String text) {
        return bm25Queries.terms(text);
      }

      @Override
      public List<String> firstPassTexts(String query, int n) {
        try {
          HitReader reader = new HitReader(searcher);
          List<String> texts = new ArrayList<>(n);
          for (ScoreDoc sd : retrieval.bm25(bm25Queries.build(query), n, filter).scoreDocs) {
            texts.add(reader.text(sd.doc));
          }
          return texts;
        } catch (IOException e) {
          throw new UncheckedIOException("search failed on snapshot " + snapshotId, e);
        }
      }
    };
  }

  private List<SearchHit> hybrid(String original, RewrittenQuery query, float[] vector, int k,
      MetadataFilter filter) {
    checkDimension(vector);
    try {
      return retrieval.hybrid(original, query, vector, k, filter, new HitReader(searcher));
    } catch (IOException e) {
      throw new UncheckedIOException("search failed on snapshot " + snapshotId, e);
    }
  }

  private List<SearchHit> rerank(String query, List<SearchHit> candidates, int k) {
    if (candidates.isEmpty()) {
      return candidates;
    }
    float[] scores = reranker.score(query, candidates.stream().map(SearchHit::text).toList());
    List<SearchHit> rescored = new ArrayList<>(candidates.size());
    for (int i = 0; i < scores.length; i++) {
      // The cross-encoder's score is the calibrated one the relevance gate compares.
      rescored.add(candidates.get(i).withScore(scores[i]).withRelevance(scores[i]));
    }
    rescored.sort(Comparator.comparingDouble(SearchHit::score).reversed()
        .thenComparing(SearchHit::chunkId));
    return rescored.size() > k ? List.copyOf(rescored.subList(0, k)) : rescored;
  }

  private List<SearchHit> run(Query query, int k, MetadataFilter filter) {
    try {
      return HitReader.read(searcher, retrieval.bm25(query, k, filter));
    } catch (IOException e) {
      throw new UncheckedIOException("search failed on snapshot " + snapshotId, e);
    }
  }

  private void checkDimension(float[] queryVector) {
    int dimension = manifest.model().dimension();
    if (queryVector.length != dimension) {
      throw new IllegalArgumentException("query vector has " + queryVector.length
          + " dimensions; snapshot " + snapshotId + " holds " + dimension + "-d vectors");
    }
    if (vectorsProblem != null) {
      throw new SnapshotException(vectorsProblem);
    }
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
      synchronized (this) {
        ModelTokenizer t = tokenizer;
        IOUtils.close(embedder, shards, analyzer, chinese, reranker, parentStore, t == null ? null : t::close);
      }
    }
  }
}
