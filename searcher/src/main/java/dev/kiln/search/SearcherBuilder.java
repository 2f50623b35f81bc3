package dev.kiln.search;

import dev.kiln.index.Analyzers;
import dev.kiln.search.rerank.CrossEncoderReranker;
import dev.kiln.search.rerank.Reranker;
import dev.kiln.search.rewrite.QueryRewriter;
import dev.kiln.search.rewrite.QueryRewriters;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.RemoteSnapshotRoots;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.Verification;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.util.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way to open a snapshot for searching ({@link Searcher#builder()}): where the snapshots
 * live, which snapshot, and how to search it. Settings are checked together at {@link #build()},
 * with errors that name the setting, so a caller assembling them from flags or config gets one clear
 * refusal instead of a failure deep in the open.
 *
 * <p>Opening checks the manifest's structure and every file it reads against the manifest's sizes,
 * and the SHA-256 of every file that a {@code VERIFIED} record made at publish or download for this
 * very manifest does not vouch for (a file changed, replaced or copied since it was verified; every
 * file with {@link Verification#FULL}), before any of it is read, so a half-copied or corrupted
 * snapshot is refused rather than served. The snapshot is searched as it was built: with the analyzer and BM25 parameters its
 * manifest records and with the embedding model it names.
 */
public final class SearcherBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(Searcher.class);
  /** The rerank stage is skipped without a model; say so once per process, not per snapshot. */
  private static final AtomicBoolean RERANK_SKIP_LOGGED = new AtomicBoolean();

  private Path rootPath;
  private URI rootUri;
  private String rootString;
  private Map<String, String> fileSystem = Map.of();
  private String snapshotId;
  private SearchOptions options = SearchOptions.defaults();
  private QueryRewriter rewriter;
  private Verification verification = Verification.RECORD;
  private ShardSelection shardSelection = ShardSelection.ALL;
  private boolean preloadQueryModel;

  SearcherBuilder() {}

  /** The snapshots root: the directory holding {@code CURRENT} and the snapshots. Required. */
  public SearcherBuilder root(Path value) {
    this.rootPath = value;
    this.rootUri = null;
    this.rootString = null;
    return this;
  }

  /**
   * The snapshots root as a URI: {@code file:///data/snapshots}, a plain path (no scheme), or a remote
   * root ({@code s3://bucket/prefix}, {@code hdfs://namenode/path}) as {@link #root(String)} takes it.
   */
  public SearcherBuilder root(URI value) {
    this.rootUri = value;
    this.rootPath = null;
    this.rootString = null;
    return this;
  }

  /**
   * The snapshots root as written on a command line: a local directory, or a remote root
   * ({@code s3://…}, {@code hdfs://…}), whose snapshot is downloaded and verified into the local mirror
   * ({@code kiln.cache.dir}, else the temporary directory) and opened from there. A remote root needs
   * {@code dev.kiln:kiln-storage} on the classpath (a {@link RemoteSnapshotRoots} service); without it
   * {@link #build()} refuses one.
   */
  public SearcherBuilder root(String value) {
    this.rootString = value;
    this.rootPath = null;
    this.rootUri = null;
    return this;
  }

  /**
   * File system settings for a remote root, over the environment's: {@code s3.endpoint},
   * {@code s3.access-key}, … for S3, {@code flink.hadoop.*} / {@code fs.*} / {@code dfs.*} for Hadoop
   * (the keys of a build config's {@code filesystem:} section). Default none.
   */
  public SearcherBuilder fileSystem(Map<String, String> settings) {
    this.fileSystem = settings == null ? Map.of() : Map.copyOf(settings);
    return this;
  }

  /** The snapshot to open by id; unset (or null) follows {@code CURRENT}. */
  public SearcherBuilder snapshot(String id) {
    this.snapshotId = id;
    return this;
  }

  /**
   * The shards to open (default {@link ShardSelection#ALL}): a shard group behind a router opens a
   * range of them; a range past the snapshot's shards fails the open.
   */
  public SearcherBuilder shards(ShardSelection value) {
    this.shardSelection = value == null ? ShardSelection.ALL : value;
    return this;
  }

  /** How to search: fusion, depths, gates, rerank model, feedback (default {@link SearchOptions#defaults()}). */
  public SearcherBuilder options(SearchOptions value) {
    this.options = value;
    return this;
  }

  /**
   * A custom query rewriter (an LLM rewriter, say) in place of the one the options select (RM3 with
   * {@code prf}, else none); it must be thread-safe. Null restores the options' choice.
   */
  public SearcherBuilder rewriter(QueryRewriter value) {
    this.rewriter = value;
    return this;
  }

  /**
   * The rewriter called {@code name} ({@link QueryRewriters}: {@code none},
   * {@code rm3}, {@code keywords}, or one a jar on the classpath provides); null restores the options'
   * choice.
   *
   * @throws SettingException ({@link Setting#REWRITER}) naming the known rewriters, for an unknown name
   */
  public SearcherBuilder rewriter(String name) {
    this.rewriter = name == null ? null : QueryRewriters.named(name);
    return this;
  }

  /**
   * How much to hash at open: {@link Verification#RECORD} (default) hashes only what the snapshot's
   * {@code VERIFIED} record does not vouch for, {@link Verification#FULL} every file the searcher reads.
   */
  public SearcherBuilder verify(Verification value) {
    this.verification = value == null ? Verification.RECORD : value;
    return this;
  }

  /**
   * Opens and verifies the snapshot; the returned searcher is thread-safe and must be closed.
   *
   * @throws IllegalStateException naming the setting when one is missing or invalid
   * @throws SnapshotException when the snapshot is missing, fails verification or cannot be read
   */
  /**
   * Whether to start loading the query model as soon as the manifest is read, on its own thread, so
   * that it overlaps the shards' open and whatever the caller does next (default false: a caller that
   * searches only BM25 never needs it). A cold {@code kiln search} and {@code kiln serve} set it. The model
   * is checked against the manifest on that thread too; a mismatch fails the first search that embeds,
   * not the open (as without a preload).
   */
  public SearcherBuilder preloadQueryModel(boolean value) {
    this.preloadQueryModel = value;
    return this;
  }

  public Searcher build() {
    if (options == null) {
      throw new IllegalStateException("Searcher.builder(): options must not be null;"
          + " leave it unset for SearchOptions.defaults()");
    }
    if (snapshotId != null && snapshotId.isBlank()) {
      throw new IllegalStateException("Searcher.builder(): snapshot id is blank;"
          + " leave snapshot(...) unset to follow CURRENT");
    }
    SnapshotStore store = new SnapshotStore(resolveRoot());
    String id = snapshotId == null ? store.currentId() : snapshotId;
    SnapshotStore.Opened opened;
    try {
      // Structure and sizes always; SHA-256 of each file the VERIFIED record does not vouch for (all
      // of them with FULL), and never of files the searcher does not read (stored vectors, the
      // shards of other groups).
      opened = store.openForServing(id, verification, shardSelection);
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
    QueryEmbedder embedder;
    try {
      embedder = new QueryEmbedder(manifest, options.queryEmbedders(), options.queryCache());
    } catch (IllegalArgumentException e) {
      IOUtils.closeWhileHandlingException(analyzer);
      throw new SnapshotException("snapshot " + id + ": " + e.getMessage(), e);
    }
    if (preloadQueryModel) {
      embedder.preload();
    }
    ShardReaders shards;
    try {
      shards = ShardReaders.open(store.layout().snapshotDir(id), manifest, shardSelection);
    } catch (RuntimeException e) {
      IOUtils.closeWhileHandlingException(analyzer, embedder);
      throw e;
    }
    Reranker reranker = null;
    Searcher searcher;
    try {
      reranker = options.reranker() == null ? null : CrossEncoderReranker.open(options.reranker());
      searcher = new Searcher(store.layout().root(), manifest, shards, analyzer, options, reranker, rewriter,
          opened.everyFileHashed(), shardSelection, embedder);
    } catch (RuntimeException | Error e) {
      // Whatever failed, nothing opened here may outlive it: a reload that fails every poll would
      // otherwise leak the shards' memory maps each time.
      IOUtils.closeWhileHandlingException(shards, analyzer, reranker, embedder);
      if (e instanceof IllegalArgumentException iae) {
        throw new SnapshotException("snapshot " + id + ": " + iae.getMessage(), iae);
      }
      throw e;
    }
    if (reranker == null && RERANK_SKIP_LOGGED.compareAndSet(false, true)) {
      LOG.info("rerank: skipped (no reranker configured)");
    }
    LOG.info("opened snapshot {}: {} of {} shard(s), {} chunks, analyzer {}, model {}; files {}; {}", id,
        shardSelection, manifest.shards().size(), shards.reader().numDocs(), manifest.index().analyzer(),
        manifest.model().name(), describe(opened, verification), options.describe());
    return searcher;
  }

  private static String describe(SnapshotStore.Opened opened, Verification verification) {
    String what = opened.filesHashed() + " of " + opened.files() + " hashed";
    if (verification == Verification.FULL) {
      return what + " (--verify full)";
    }
    if (!opened.hashed()) {
      return what + ", sizes checked (the VERIFIED record vouches for every file)";
    }
    return what + (opened.everyFileHashed() ? " (no VERIFIED record vouches for them)"
        : " (changed since the VERIFIED record, or modified just before it)")
        + (opened.rebound() ? "; VERIFIED rewritten with their identities" : "");
  }

  /**
   * The local directory the root setting names: the one place a root becomes a path. A remote root's
   * snapshot is copied down (and checked against its manifest) first.
   */
  private Path resolveRoot() {
    if (rootPath != null) {
      return rootPath;
    }
    String root = rootString != null ? rootString : rootUri != null ? rootUri.toString() : null;
    if (root == null) {
      throw new IllegalStateException("Searcher.builder(): root is not set;"
          + " call root(Path), root(URI) or root(String) with the snapshots root (the directory holding CURRENT)");
    }
    if (RemoteSnapshotRoots.isRemote(root)) {
      RemoteSnapshotRoots remote = RemoteSnapshotRoots.installed().orElseThrow(() -> new SnapshotException(
          "cannot read the snapshots root " + root + ": remote roots need dev.kiln:kiln-storage on the classpath"));
      try {
        return remote.localize(root, fileSystem, snapshotId, shardSelection);
      } catch (IOException | IllegalArgumentException e) {
        throw new SnapshotException("cannot read the snapshots root " + root + ": " + e.getMessage(), e);
      }
    }
    if (rootUri != null && rootUri.getScheme() == null) {
      return Path.of(rootUri.getPath());
    }
    if (root.startsWith("file:")) {
      return Path.of(URI.create(root));
    }
    return Path.of(root);
  }
}
