package dev.kiln.search;

import dev.kiln.index.Analyzers;
import dev.kiln.index.ShardSchema;
import dev.kiln.search.fusion.Fusion;
import dev.kiln.search.fusion.ReciprocalRankFusion;
import dev.kiln.search.fusion.ScoredId;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotStore;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.util.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Searches one published snapshot: dense (HNSW), BM25 or both fused with reciprocal rank fusion.
 *
 * <p>Opening verifies every file against the manifest's SHA-256 before any of it is read, so a
 * half-copied or corrupted snapshot is refused rather than served. The snapshot is searched as it
 * was built: with the analyzer and BM25 parameters its manifest records and with the embedding
 * model it names.
 *
 * <p>Instances are thread-safe; share one per snapshot. Queries are embedded one at a time.
 */
public final class Searcher implements Closeable {
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
  private final Fusion fusion;
  private final AtomicBoolean closed = new AtomicBoolean();

  private Searcher(Manifest manifest, ShardReaders shards, Analyzer analyzer, SearchOptions options) {
    this.snapshotId = manifest.id();
    this.manifest = manifest;
    this.options = options;
    this.shards = shards;
    this.analyzer = analyzer;
    this.searcher = new IndexSearcher(shards.reader());
    this.searcher.setSimilarity(
        new BM25Similarity(manifest.index().bm25K1(), manifest.index().bm25B()));
    String cn = manifest.index().chineseAnalyzer();
    this.chinese = cn == null ? null : Analyzers.forName(cn);
    this.bm25Queries = new Bm25QueryBuilder(analyzer, chinese, ShardSchema.TEXT);
    this.embedder = new QueryEmbedder(manifest);
    this.fusion = new ReciprocalRankFusion(options.rrfK());
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
    Objects.requireNonNull(options, "options");
    SnapshotStore store = new SnapshotStore(snapshotsRoot);
    String id = snapshotId == null ? store.currentId() : snapshotId;
    Manifest manifest;
    try {
      manifest = store.open(id);
    } catch (IllegalArgumentException e) {
      // The layout rejects ids that could escape the root; for a caller that is just a bad id.
      throw new SnapshotException(e.getMessage(), e);
    }
    Analyzer analyzer;
    try {
      analyzer = Analyzers.forName(manifest.index().analyzer());
    } catch (IllegalArgumentException e) {
      throw new SnapshotException("snapshot " + id + ": " + e.getMessage(), e);
    }
    ShardReaders shards = ShardReaders.open(store.layout().snapshotDir(id), manifest);
    LOG.info("opened snapshot {}: {} shard(s), {} chunks, analyzer {}, model {}", id,
        manifest.shards().size(), shards.reader().numDocs(), manifest.index().analyzer(),
        manifest.model().name());
    return new Searcher(manifest, shards, analyzer, options);
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

  /** Runs a query in the given mode and returns at most {@code k} chunks, best first. */
  public SearchResponse search(String query, SearchMode mode, int k) {
    checkK(k);
    List<SearchHit> hits = switch (mode) {
      case DENSE -> dense(embedder.embed(query), k);
      case BM25 -> bm25(query, k);
      case HYBRID -> hybrid(query, k);
    };
    return new SearchResponse(snapshotId, mode, hits);
  }

  /**
   * Nearest chunks to a query vector by dot product. The vector must come from the snapshot's model
   * (and be unit length, as that model's vectors are).
   */
  public List<SearchHit> dense(float[] queryVector, int k) {
    checkK(k);
    int dimension = manifest.model().dimension();
    if (queryVector.length != dimension) {
      throw new IllegalArgumentException("query vector has " + queryVector.length
          + " dimensions; snapshot " + snapshotId + " holds " + dimension + "-d vectors");
    }
    ShardReaders.checkVectors(shards.reader(), manifest);
    return run(new KnnFloatVectorQuery(ShardSchema.VECTOR, queryVector, k), k);
  }

  /** Bag-of-words BM25 over chunk text; a query with no terms left after analysis finds nothing. */
  public List<SearchHit> bm25(String query, int k) {
    checkK(k);
    Query q = bm25Queries.build(query);
    return q == null ? List.of() : run(q, k);
  }

  /** Both retrievers to the candidate depth, fused by rank, cut to {@code k}. */
  private List<SearchHit> hybrid(String query, int k) {
    int depth = Math.max(k, options.candidateDepth());
    List<SearchHit> dense = dense(embedder.embed(query), depth);
    List<SearchHit> lexical = bm25(query, depth);
    Map<String, SearchHit> byId = new HashMap<>();
    for (SearchHit h : dense) {
      byId.putIfAbsent(h.chunkId(), h);
    }
    for (SearchHit h : lexical) {
      byId.putIfAbsent(h.chunkId(), h);
    }
    List<ScoredId> fused = fusion.fuse(List.of(ranking(dense), ranking(lexical)), k);
    List<SearchHit> hits = new ArrayList<>(fused.size());
    for (ScoredId f : fused) {
      hits.add(byId.get(f.id()).withScore(f.score()));
    }
    return hits;
  }

  private static List<ScoredId> ranking(List<SearchHit> hits) {
    return hits.stream().map(h -> new ScoredId(h.chunkId(), h.score())).toList();
  }

  private List<SearchHit> run(Query query, int k) {
    try {
      TopDocs top = searcher.search(query, k);
      return HitReader.read(searcher, top);
    } catch (IOException e) {
      throw new UncheckedIOException("search failed on snapshot " + snapshotId, e);
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
      IOUtils.close(embedder, shards, analyzer, chinese);
    }
  }
}
