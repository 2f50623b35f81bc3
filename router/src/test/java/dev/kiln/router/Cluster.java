package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.ShardSelection;
import dev.kiln.search.http.ApiKeys;
import dev.kiln.search.http.ReloadSettings;
import dev.kiln.search.http.ReloadingSearcher;
import dev.kiln.search.http.SearchServer;
import dev.kiln.search.http.ServerConfig;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Search servers on loopback for router tests: whole-snapshot ones and shard groups, closed together. */
final class Cluster implements Closeable {
  /**
   * Kiln's search defaults with one query embedder per server: the count changes no answer, and a
   * test's several servers on a small machine then load one model copy each, on the first query.
   */
  static final SearchOptions DEFAULTS = SearchOptions.defaults().withQueryEmbedders(1);
  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private final List<Closeable> open = new ArrayList<>();

  /** A server of {@code root}; {@code shards} null for every shard; polls CURRENT every {@code pollMs} (0: never). */
  Server serve(Path root, String shards, long pollMs) throws IOException {
    return serve(root, shards, pollMs, DEFAULTS);
  }

  Server serve(Path root, String shards, long pollMs, SearchOptions options) throws IOException {
    return serve(root, shards, pollMs, options, null);
  }

  /** As {@link #serve(Path, String, long, SearchOptions)}, requiring {@code keys} (null: none). */
  Server serve(Path root, String shards, long pollMs, SearchOptions options, ApiKeys keys) throws IOException {
    ReloadSettings settings = ReloadSettings.polling(pollMs);
    if (shards != null) {
      settings = settings.withShards(ShardSelection.parse(shards));
    }
    ReloadingSearcher searchers = new ReloadingSearcher(root, options, settings);
    ServerConfig config = ServerConfig.of("127.0.0.1", 0, 8);
    SearchServer server = SearchServer.start(searchers, keys == null ? config : config.withApiKeys(keys));
    Server s = new Server(searchers, server);
    open.add(s);
    return s;
  }

  /** Closes {@code c} with the cluster. */
  void closeLater(Closeable c) {
    open.add(c);
  }

  RouterServer route(RouterConfig config) throws Exception {
    RouterServer r = RouterServer.start(config);
    open.add(0, r);
    return r;
  }

  static HttpResponse<String> get(int port, String pathAndQuery) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
        .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A GET with {@code X-Api-Key: key}. */
  static HttpResponse<String> get(int port, String pathAndQuery, String key) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
        .timeout(Duration.ofSeconds(20)).header("X-Api-Key", key).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(int port, String path, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Same snapshot, mode, chunks in the same order with the same fields, scores within {@code tolerance}:
   * the query embedding can differ in its last bits between processes (and, under concurrent load,
   * between batches), which moves dense scores by an ulp; BM25 scores are exact.
   */
  static void assertSameAnswer(JsonNode expected, JsonNode answer, double tolerance) {
    assertEquals(expected.path("snapshot"), answer.path("snapshot"));
    assertEquals(expected.path("mode"), answer.path("mode"));
    assertEquals(expected.path("reason"), answer.path("reason"));
    JsonNode e = expected.path("results");
    JsonNode a = answer.path("results");
    assertEquals(e.size(), a.size(), answer.toString());
    for (int i = 0; i < e.size(); i++) {
      ObjectNode ei = ((ObjectNode) e.get(i)).deepCopy();
      ObjectNode ai = ((ObjectNode) a.get(i)).deepCopy();
      double es = ei.remove("score").asDouble();
      double as = ai.remove("score").asDouble();
      // The calibrated score (with a relevance gate) is a dot product with the query's embedding.
      JsonNode er = ei.remove("relevance");
      JsonNode ar = ai.remove("relevance");
      assertEquals(ei, ai, "hit " + i + " of " + answer);
      assertEquals(es, as, "bm25".equals(expected.path("mode").asText()) ? 0.0 : tolerance, "hit " + i);
      assertEquals(er == null, ar == null, "hit " + i + " relevance of " + answer);
      if (er != null) {
        assertEquals(er.asDouble(), ar.asDouble(), tolerance, "hit " + i + " relevance");
      }
    }
  }

  @Override
  public void close() {
    for (Closeable c : open) {
      try {
        c.close();
      } catch (IOException | RuntimeException e) {
        // Closing the rest matters more.
      }
    }
  }

  /** A search server and its reloading searcher; closing one stops both. */
  record Server(ReloadingSearcher searchers, SearchServer server) implements Closeable {
    int port() {
      return server.port();
    }

    URI uri() {
      return URI.create("http://127.0.0.1:" + server.port());
    }

    @Override
    public void close() {
      server.close();
      searchers.close();
    }
  }
}
