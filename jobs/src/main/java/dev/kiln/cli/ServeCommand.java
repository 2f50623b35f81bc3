package dev.kiln.cli;

import dev.kiln.config.ConfigException;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.http.ReloadingSearcher;
import dev.kiln.search.http.SearchServer;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code kiln serve}: the HTTP search service, following {@code CURRENT} as it changes. */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "Serve the published snapshot over HTTP and hot-reload when CURRENT changes.")
final class ServeCommand implements Callable<Integer> {
  @Option(names = "--snapshots", paramLabel = "URI", defaultValue = "kiln-data/snapshots",
      description = "snapshots root; a remote one (s3://, hdfs://) is downloaded once at start "
          + "(default: ${DEFAULT-VALUE})")
  String snapshots;

  @Option(names = "--port", paramLabel = "N", defaultValue = "8080", description = "port; 0 picks one (default: ${DEFAULT-VALUE})")
  int port;

  @Option(names = "--host", paramLabel = "ADDR", defaultValue = "127.0.0.1",
      description = "address to bind (default: ${DEFAULT-VALUE})")
  String host;

  @Option(names = "--threads", paramLabel = "N", description = "request threads (default: 2 x cores)")
  Integer threads;

  @Option(names = "--poll-ms", paramLabel = "MS", defaultValue = "1000",
      description = "how often to check CURRENT for a new snapshot (default: ${DEFAULT-VALUE})")
  long pollMs;

  @Mixin RetrievalOptions retrieval;
  @Mixin FileSystemOptions fs;

  @Override
  public Integer call() throws Exception {
    if (port < 0 || port > 65535) {
      throw new ConfigException("--port must be in 0..65535, was " + port);
    }
    if (pollMs < 1) {
      throw new ConfigException("--poll-ms must be >= 1, was " + pollMs);
    }
    int n = threads == null ? 2 * Runtime.getRuntime().availableProcessors() : threads;
    if (n < 1) {
      throw new ConfigException("--threads must be >= 1, was " + n);
    }
    SearchOptions options = retrieval.toOptions();
    ReloadingSearcher searchers = new ReloadingSearcher(SnapshotRoots.local(snapshots, null, fs), options, pollMs);
    SearchServer server = SearchServer.start(searchers, host, port, n);
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
