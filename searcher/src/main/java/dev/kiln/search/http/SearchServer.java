package dev.kiln.search.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.Searcher;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP face of a {@link ReloadingSearcher}, on the JDK's built-in server:
 *
 * <pre>
 * GET  /search?q=…&amp;k=10&amp;mode=hybrid&amp;filter=key:value   POST /search  {"q", "k", "mode", "filter"}
 * GET|POST /context  (as /search, plus budget = tokens)      GET /health  GET /snapshot  GET /metrics
 * </pre>
 *
 * Bad input (k outside 1..1000, a query over 8 KiB, an unknown mode, a malformed filter, a body that
 * is not JSON) is answered 400 with {@code {"error": "…"}}; a failure inside search 500 the same way.
 */
public final class SearchServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(SearchServer.class);
  /** Bodies past this are refused before parsing: a query is at most 8 KiB plus a little JSON. */
  private static final int MAX_BODY_BYTES = 64 * 1024;

  private final ReloadingSearcher searchers;
  private final HttpServer server;
  private final ExecutorService executor;
  private final ServerMetrics metrics = new ServerMetrics();
  private final ObjectMapper json = new ObjectMapper();

  private SearchServer(ReloadingSearcher searchers, HttpServer server, ExecutorService executor) {
    this.searchers = searchers;
    this.server = server;
    this.executor = executor;
  }

  /** Binds {@code host:port} (port 0 picks a free one) and starts answering. */
  public static SearchServer start(ReloadingSearcher searchers, String host, int port, int threads)
      throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 128);
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "kiln-http");
      t.setDaemon(true);
      return t;
    });
    SearchServer s = new SearchServer(searchers, http, pool);
    http.setExecutor(pool);
    http.createContext("/search", ex -> s.handle(ex, "search", s::search));
    http.createContext("/context", ex -> s.handle(ex, "context", s::context));
    http.createContext("/health", ex -> s.handle(ex, "health", s::health));
    http.createContext("/snapshot", ex -> s.handle(ex, "snapshot", s::snapshot));
    http.createContext("/metrics", ex -> s.handle(ex, "metrics", s::metrics));
    http.start();
    LOG.info("serving on http://{}:{} with {} threads", host, s.port(), threads);
    return s;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public ServerMetrics metrics() {
    return metrics;
  }

  private interface Handler {
    Reply handle(HttpExchange ex) throws IOException;
  }

  private record Reply(int status, String contentType, String body) {}

  private void handle(HttpExchange ex, String endpoint, Handler handler) {
    long start = System.nanoTime();
    Reply reply;
    try {
      reply = handler.handle(ex);
    } catch (BadRequest e) {
      reply = error(400, e.getMessage());
    } catch (MethodNotAllowed e) {
      reply = error(405, e.getMessage());
    } catch (RuntimeException | IOException | Error e) {
      // Errors too (a native library, an exhausted heap): a client must always get an answer.
      LOG.warn("{} failed: {}", endpoint, e.toString(), e);
      reply = error(500, endpoint + " failed: " + e.getMessage());
    }
    try {
      byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", reply.contentType());
      ex.sendResponseHeaders(reply.status(), bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    } catch (IOException e) {
      LOG.debug("client went away: {}", e.getMessage());
    } finally {
      ex.close();
      metrics.record(endpoint, reply.status(), System.nanoTime() - start);
    }
  }

  private static final class MethodNotAllowed extends RuntimeException {
    MethodNotAllowed(String message) {
      super(message);
    }
  }

  private Reply error(int status, String message) {
    ObjectNode node = json.createObjectNode().put("error", message);
    return new Reply(status, "application/json", node.toString());
  }

  private Reply ok(Object body) throws IOException {
    return new Reply(200, "application/json", json.writeValueAsString(body));
  }

  private SearchRequest request(HttpExchange ex) throws IOException {
    return switch (ex.getRequestMethod()) {
      case "GET" -> QueryParams.fromParams(QueryParams.parseQueryString(ex.getRequestURI().getRawQuery()));
      case "POST" -> QueryParams.fromJson(body(ex));
      default -> throw new MethodNotAllowed("use GET or POST");
    };
  }

  private JsonNode body(HttpExchange ex) throws IOException {
    try (InputStream in = ex.getRequestBody()) {
      byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
      if (bytes.length > MAX_BODY_BYTES) {
        throw new BadRequest("body is larger than " + MAX_BODY_BYTES + " bytes");
      }
      try {
        return json.readTree(bytes);
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new BadRequest("body is not valid JSON: " + e.getOriginalMessage());
      }
    }
  }

  private Reply search(HttpExchange ex) throws IOException {
    SearchRequest request = request(ex);
    try (ReloadingSearcher.Lease lease = searchers.acquire()) {
      SearchResponse response = lease.searcher().search(request);
      return ok(response);
    }
  }

  private Reply context(HttpExchange ex) throws IOException {
    SearchRequest request;
    int budget;
    if (ex.getRequestMethod().equals("POST")) {
      JsonNode body = body(ex);
      request = QueryParams.fromJson(body);
      budget = QueryParams.budget(body.hasNonNull("budget") ? body.get("budget").asText() : null);
    } else if (ex.getRequestMethod().equals("GET")) {
      Map<String, List<String>> p = QueryParams.parseQueryString(ex.getRequestURI().getRawQuery());
      request = QueryParams.fromParams(p);
      budget = QueryParams.budget(p.containsKey("budget") ? p.get("budget").get(0) : null);
    } else {
      throw new MethodNotAllowed("use GET or POST");
    }
    try (ReloadingSearcher.Lease lease = searchers.acquire()) {
      return ok(lease.searcher().context(request, budget));
    }
  }

  private Reply health(HttpExchange ex) throws IOException {
    try (ReloadingSearcher.Lease lease = searchers.acquire()) {
      ReloadStatus reload = searchers.reloadStatus(); // still serving, but say when CURRENT cannot be loaded
      return ok(Map.of("status", reload.healthy() ? "ok" : "degraded", "snapshot", lease.searcher().snapshotId(),
          "reload", reload.toMap()));
    }
  }

  private Reply snapshot(HttpExchange ex) throws IOException {
    try (ReloadingSearcher.Lease lease = searchers.acquire()) {
      Searcher s = lease.searcher();
      ObjectNode node = json.createObjectNode();
      node.put("snapshot", s.snapshotId());
      node.put("chunks", s.chunkCount());
      node.put("reloads", searchers.reloads());
      node.put("options", s.options().describe());
      node.set("manifest", json.valueToTree(s.manifest()));
      return ok(node);
    }
  }

  private Reply metrics(HttpExchange ex) {
    return new Reply(200, "text/plain; version=0.0.4; charset=utf-8",
        metrics.render(searchers.currentId(), searchers.reloads()) + searchers.reloadStatus().prometheus());
  }

  /** Stops accepting, lets in-flight requests finish (up to a few seconds), then closes. */
  @Override
  public void close() {
    server.stop(1);
    executor.shutdown();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
