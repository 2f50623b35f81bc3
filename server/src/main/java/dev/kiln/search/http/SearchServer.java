package dev.kiln.search.http;

import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP face of a {@link ReloadingSearcher}, on embedded Jetty 12 (core handlers, no servlets):
 *
 * <pre>
 * GET  /search?q=…&amp;k=10&amp;mode=hybrid&amp;filter=key:value   POST /search  {"q", "k", "mode", "filter"}
 * GET|POST /context  (as /search, plus budget = tokens)      GET /health  GET /snapshot  GET /metrics
 * GET /ui (the web page)  GET /snapshots  GET /manifest?snapshot=ID  GET /explain (as /search, plus snapshot=ID)
 * </pre>
 *
 * Bad input (k outside 1..1000, a query over 8 KiB, an unknown mode, a malformed filter, a body that
 * is not one JSON object of known fields) is answered 400 with {@code {"error": "…"}}, a method the
 * endpoint does not take 405 with {@code Allow}; every error body is JSON, Jetty's own ({@link JsonErrors})
 * included. A failure inside search is a 500 that gives a request id and no detail. Who may see what is
 * {@link Route}'s; hits' {@code source_uri} is shown relative to its corpus root ({@link SourceUris}).
 *
 * <p>Protection ({@link ServerConfig}): Jetty's NIO connector holds no thread for a connection that
 * is idle or still sending; a connection silent for the idle timeout is closed, and so is one whose
 * headers ({@link HeaderDeadline}) or body take longer than it (408); at most {@code maxConnections}
 * are open ({@link SheddingConnectionLimit}: past it Jetty stops accepting, and the open connections,
 * and those opened until it clears, get an idle timeout of at most {@value #IDLE_AT_LIMIT_MS} ms).
 * Searches run on their own pool with a bounded queue (503 + {@code Retry-After: 1} when full); a
 * search whose client has gone before it starts is dropped ({@link ClientProbe}). Host and Origin are
 * checked ({@link HostGuard}, 403) and, with {@link ApiKeys}, a key is required (401) and its
 * bindings narrow every search.
 */
public final class SearchServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(SearchServer.class);
  /** Idle timeout of open connections while the connection limit is reached. */
  static final long IDLE_AT_LIMIT_MS = 1000;
  /** Request line + headers: an 8 KiB query percent-encoded is up to 24 KiB. */
  private static final int MAX_HEADER_BYTES = 32 * 1024;

  private final Server server;
  private final ServerConnector connector;
  private final ThreadPoolExecutor searchPool;
  private final ServerMetrics metrics;
  private final Inspection inspection;

  private SearchServer(Server server, ServerConnector connector, ThreadPoolExecutor searchPool,
      ServerMetrics metrics, Inspection inspection) {
    this.inspection = inspection;
    this.server = server;
    this.connector = connector;
    this.searchPool = searchPool;
    this.metrics = metrics;
  }

  /** Binds {@code host:port} (port 0 picks a free one) with the default limits and starts answering. */
  public static SearchServer start(ReloadingSearcher searchers, String host, int port, int threads)
      throws IOException {
    return start(searchers, ServerConfig.of(host, port, threads));
  }

  public static SearchServer start(ReloadingSearcher searchers, ServerConfig config) throws IOException {
    return start(ServedRoots.single(searchers), config);
  }

  /** Serves one root or several federated ({@link ServedRoots}), each reloading on its own. */
  public static SearchServer start(ServedRoots searchers, ServerConfig config) throws IOException {
    // First, so that an unknown --rewriter fails before anything is made.
    RequestOptionParser requestOptions = new RequestOptionParser(config.limits(), config.rewriter());
    // Network threads only parse, check and answer the light endpoints; searches have their own pool.
    QueuedThreadPool networkThreads = new QueuedThreadPool(64, 4);
    networkThreads.setName("kiln-http");
    networkThreads.setDaemon(true);
    Server server = new Server(networkThreads);
    server.setStopTimeout(2000);

    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setRequestHeaderSize(MAX_HEADER_BYTES);
    ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
    connector.setHost(config.host());
    connector.setPort(config.port());
    connector.setIdleTimeout(config.idleTimeoutMs());
    server.addConnector(connector);

    ServerMetrics metrics = new ServerMetrics();
    SheddingConnectionLimit limit = new SheddingConnectionLimit(config.maxConnections(), server,
        config.idleTimeoutMs(), Math.min(config.idleTimeoutMs(), IDLE_AT_LIMIT_MS));
    server.addBean(limit);
    metrics.openConnections(limit::getConnections);
    connector.addBean(new Connection.Listener() {
      @Override
      public void onOpened(Connection connection) {
        metrics.connectionOpened();
      }
    });
    HeaderDeadline headers = new HeaderDeadline(server.getScheduler(), config.idleTimeoutMs(), metrics);
    connector.addBean(headers);

    BlockingQueue<Runnable> queue = config.queue() == 0 ? new SynchronousQueue<>()
        : new ArrayBlockingQueue<>(config.queue());
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor searchPool = new ThreadPoolExecutor(config.threads(), config.threads(), 0,
        TimeUnit.MILLISECONDS, queue, r -> {
          Thread t = new Thread(r, "kiln-search-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        }, new ThreadPoolExecutor.AbortPolicy());

    Endpoints endpoints = new Endpoints(searchers, metrics, config.sources(), requestOptions);
    server.setHandler(new SearchHandler(endpoints, metrics, new HostGuard(config.host(), config.allowedHosts()),
        config.apiKeys(), searchPool, config, headers));
    server.setErrorHandler(new JsonErrors()); // Jetty's own 400, 414, 431 … as JSON, not HTML
    try {
      server.start();
    } catch (Exception e) {
      searchPool.shutdownNow();
      try {
        server.stop();
      } catch (Exception ignored) {
        // already failing
      }
      throw new IOException("cannot serve on " + config.host() + ":" + config.port() + ": " + e.getMessage(), e);
    }
    SearchServer s = new SearchServer(server, connector, searchPool, metrics, endpoints.inspection);
    if ((config.host().equals("0.0.0.0") || config.host().equals("::")) && config.allowedHosts().isEmpty()) {
      LOG.warn("bound to {} but no --allowed-host given: clients using this machine's name or address get 403; "
          + "only localhost, 127.0.0.1 and [::1] are accepted", config.host());
    }
    LOG.info("serving on http://{}:{}: {} search threads, queue {}, idle timeout {} ms, at most {} connections, "
            + "{}", config.host(), s.port(), config.threads(), config.queue(), config.idleTimeoutMs(),
        config.maxConnections(), config.apiKeys() == null ? "no API keys"
            : config.apiKeys().size() + " API keys");
    LOG.info("{}; rewriter for requests that name none: {}", config.limits().describe(),
        config.rewriter() == null ? "the searcher's" : config.rewriter());
    return s;
  }

  public int port() {
    return connector.getLocalPort();
  }

  public ServerMetrics metrics() {
    return metrics;
  }

  /** Stops accepting, lets in-flight requests finish (up to a few seconds), then closes. */
  @Override
  public void close() {
    searchPool.shutdown();
    try {
      searchPool.awaitTermination(5, TimeUnit.SECONDS);
      server.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.warn("stopping the HTTP server: {}", e.toString());
    }
    inspection.close(); // the other snapshots the web page opened
  }
}
