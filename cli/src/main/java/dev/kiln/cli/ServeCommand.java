package dev.kiln.cli;

import dev.kiln.config.ConfigException;
import dev.kiln.search.FederatedSearcher;
import dev.kiln.search.RelevanceGate;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.ShardSelection;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.http.ApiKeys;
import dev.kiln.search.http.ReloadSettings;
import dev.kiln.search.http.ReloadingSearcher;
import dev.kiln.search.http.RequestLimits;
import dev.kiln.search.http.SearchServer;
import dev.kiln.search.http.ServedRoots;
import dev.kiln.search.http.ServerConfig;
import dev.kiln.search.http.SourceUris;
import dev.kiln.snapshot.io.RemoteRoots;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code kiln serve}: the HTTP search service, following {@code CURRENT} as it changes. */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "Serve the published snapshot over HTTP and hot-reload when CURRENT changes.")
final class ServeCommand implements Callable<Integer> {
  @Option(names = "--snapshots", paramLabel = "URI",
      description = "snapshots root; a remote one (s3://, hdfs://) is followed too: each snapshot its "
          + "CURRENT names is downloaded into a local cache and verified before it is served "
          + "(default: " + SearchPaths.DEFAULT_ROOT + "); repeat it to serve several roots searched as one, "
          + "each following its own CURRENT")
  List<String> snapshots;

  @Option(names = "--snapshots-weight", paramLabel = "W",
      description = "with several --snapshots: each root's weight in the merge, in the same order (default: 1 each)")
  List<Double> weights;

  @Option(names = "--port", paramLabel = "N", defaultValue = "8080", description = "port; 0 picks one (default: ${DEFAULT-VALUE})")
  int port;

  @Option(names = "--host", paramLabel = "ADDR", defaultValue = "127.0.0.1",
      description = "address to bind (default: ${DEFAULT-VALUE})")
  String host;

  @Option(names = "--threads", paramLabel = "N", description = "search threads (default: 2 x cores)")
  Integer threads;

  @Option(names = "--queue", paramLabel = "N", defaultValue = "" + ServerConfig.DEFAULT_QUEUE,
      description = "searches that may wait for a thread; more are answered 503 with Retry-After "
          + "(default: ${DEFAULT-VALUE})")
  int queue;

  @Option(names = "--idle-timeout-ms", paramLabel = "MS", defaultValue = "" + ServerConfig.DEFAULT_IDLE_TIMEOUT_MS,
      description = "close a connection silent this long; request headers and body must each arrive "
          + "within it too (default: ${DEFAULT-VALUE})")
  long idleTimeoutMs;

  @Option(names = "--max-connections", paramLabel = "N", defaultValue = "" + ServerConfig.DEFAULT_MAX_CONNECTIONS,
      description = "open connections at most (default: ${DEFAULT-VALUE})")
  int maxConnections;

  @Option(names = "--allowed-host", paramLabel = "NAME",
      description = "a host name clients may use in Host/Origin besides the bound address, localhost, "
          + "127.0.0.1 and [::1]; repeatable")
  List<String> allowedHosts = new ArrayList<>();

  @Option(names = "--api-keys", paramLabel = "FILE",
      description = "require an API key (Authorization: Bearer KEY or X-Api-Key) listed in FILE, one per "
          + "line, optionally bound to metadata such as tenant=acme (docs/FORMATS.md)")
  Path apiKeys;

  @Option(names = "--source-root", paramLabel = "URI[=LABEL]",
      description = "a corpus root of the build (as its --corpus named it); hits' source_uri under it is "
          + "answered relative to it, after LABEL/ when given; a local source under no root is answered as its "
          + "file name; repeatable")
  List<String> sourceRoots = new ArrayList<>();

  @Option(names = "--poll-ms", paramLabel = "MS", defaultValue = "1000",
      description = "how often to check CURRENT for a new snapshot; on a remote root each check is one "
          + "small read of CURRENT (default: ${DEFAULT-VALUE})")
  long pollMs;

  @Option(names = "--check-timeout-ms", paramLabel = "MS", defaultValue = "" + ReloadSettings.DEFAULT_CHECK_TIMEOUT_MILLIS,
      description = "a read of CURRENT that takes longer (a hung mount) fails the check and is abandoned; no other"
          + " starts until it returns (default: ${DEFAULT-VALUE})")
  long checkTimeoutMs;

  @Option(names = "--max-ef", paramLabel = "N", defaultValue = "" + RequestLimits.DEFAULT_MAX_EF,
      description = "largest ef one request may ask for; above it: 400 (default: ${DEFAULT-VALUE})")
  int maxEf;

  @Option(names = "--max-depth", paramLabel = "N", defaultValue = "" + RequestLimits.DEFAULT_MAX_DEPTH,
      description = "largest dense-depth and bm25-depth one request may ask for (default: ${DEFAULT-VALUE})")
  int maxDepth;

  @Option(names = "--max-rerank-depth", paramLabel = "N", defaultValue = "" + RequestLimits.DEFAULT_MAX_RERANK_DEPTH,
      description = "largest rerank-depth one request may ask for (default: ${DEFAULT-VALUE})")
  int maxRerankDepth;

  @Option(names = "--shards", paramLabel = "A-B",
      description = "serve only these shards of each snapshot (a number, or a range such as 0-3): one shard group"
          + " behind `kiln route`; it keeps the previous snapshot open for a while after a switch so the router"
          + " never mixes two (default: every shard)")
  String shards;

  @Mixin RetrievalOptions retrieval;
  @Mixin VerifyOption verify;
  @Mixin FileSystemOptions fs;

  @Override
  public Integer call() throws Exception {
    StartupTimings.mark("main", System.nanoTime());
    if (port < 0 || port > 65535) {
      throw new ConfigException("--port must be in 0..65535, was " + port);
    }
    if (pollMs < 1) {
      throw new ConfigException("--poll-ms must be >= 1, was " + pollMs);
    }
    if (checkTimeoutMs < 1) {
      throw new ConfigException("--check-timeout-ms must be >= 1, was " + checkTimeoutMs);
    }
    ReloadSettings reload = ReloadSettings.polling(pollMs).withCheckTimeoutMillis(checkTimeoutMs)
        .withVerification(verify.mode());
    if (shards != null) {
      try {
        reload = reload.withShards(ShardSelection.parse(shards));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(e.getMessage(), e);
      }
    }
    int n = threads == null ? 2 * Runtime.getRuntime().availableProcessors() : threads;
    if (n < 1) {
      throw new ConfigException("--threads must be >= 1, was " + n);
    }
    if (queue < 0) {
      throw new ConfigException("--queue must be >= 0, was " + queue);
    }
    if (idleTimeoutMs < 1) {
      throw new ConfigException("--idle-timeout-ms must be >= 1, was " + idleTimeoutMs);
    }
    if (maxConnections < 1) {
      throw new ConfigException("--max-connections must be >= 1, was " + maxConnections);
    }
    for (Map.Entry<String, Integer> limit : Map.of("--max-ef", maxEf, "--max-depth", maxDepth,
        "--max-rerank-depth", maxRerankDepth).entrySet()) {
      if (limit.getValue() < 1) {
        throw new ConfigException(limit.getKey() + " must be >= 1, was " + limit.getValue());
      }
    }
    retrieval.requestOptions(); // an unknown --rewriter fails here, naming the known ones
    ServerConfig config = ServerConfig.of(host, port, n).withQueue(queue).withIdleTimeoutMs(idleTimeoutMs)
        .withLimits(new RequestLimits(maxEf, maxDepth, maxRerankDepth)).withRewriter(retrieval.rewriter)
        .withMaxConnections(maxConnections).withAllowedHosts(allowedHosts)
        .withApiKeys(apiKeys == null ? null : ApiKeys.load(apiKeys));
    try {
      config = config.withSources(SourceUris.parse(sourceRoots));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("--source-root " + e.getMessage(), e);
    }
    SearchOptions options = retrieval.toOptions();
    List<String> roots = SearchPaths.roots(snapshots);
    if (weights != null && !weights.isEmpty() && weights.size() != roots.size()) {
      throw new ConfigException("--snapshots-weight: " + weights.size() + " weight(s) for " + roots.size()
          + " --snapshots roots; give one per root, in the same order");
    }
    if (roots.stream().distinct().count() != roots.size()) {
      throw new ConfigException("--snapshots names the same root twice: " + roots);
    }
    List<ServedRoots.Root> served = new ArrayList<>();
    long opening = System.nanoTime();
    try {
      for (int i = 0; i < roots.size(); i++) {
        String root = roots.get(i);
        double w = weights == null || weights.isEmpty() ? 1.0 : weights.get(i);
        if (!(w >= 0) || Double.isInfinite(w)) {
          throw new ConfigException("--snapshots-weight must be finite and >= 0, was " + w);
        }
        try {
          served.add(new ServedRoots.Root(root, new ReloadingSearcher(SnapshotRoots.source(root, fs), options, reload),
              w));
        } catch (RuntimeException e) {
          throw RemoteRoots.isRemote(root) ? SnapshotRoots.failure(root, e) : e;
        }
      }
    } catch (RuntimeException e) {
      served.forEach(r -> r.searchers().close());
      throw e;
    }
    ServedRoots searchers = new ServedRoots(served, options.fusion() == FusionMethod.RRF
        ? FederatedSearcher.Merge.RRF : FederatedSearcher.Merge.CALIBRATED, options.rrfK(),
        new RelevanceGate(options.minScore(), options.maxDrop()));
    StartupTimings.mark("open", opening);
    long starting = System.nanoTime();
    SearchServer server = SearchServer.start(searchers, config);
    StartupTimings.mark("ready", starting);
    System.out.printf("kiln: serving snapshot %s on http://%s:%d (Ctrl-C to stop)%n",
        searchers.currentId(), host, server.port());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      searchers.close();
      stopped.countDown();
    }, "kiln-serve-shutdown"));
    stopped.await();
    return Kiln.OK;
  }
}
