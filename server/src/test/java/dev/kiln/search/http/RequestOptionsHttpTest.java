package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;
import dev.kiln.search.SnapshotFixture;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Per-request retrieval options over HTTP, on a real server with operator limits of its own. */
class RequestOptionsHttpTest {
  @TempDir static Path root;
  private static TextEmbedder embedder;
  private static ServedRoots searchers;
  private static SearchServer server;
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws IOException {
    embedder = SnapshotFixture.openEmbedder();
    new SnapshotFixture(embedder).write(root);
    searchers = ServedRoots.single(new ReloadingSearcher(root, SearchOptions.defaults(), 0));
    server = SearchServer.start(searchers, ServerConfig.of("127.0.0.1", 0, 2)
        .withLimits(new RequestLimits(50, 20, 10)));
  }

  @AfterAll
  static void stop() {
    server.close();
    searchers.close();
    embedder.close();
  }

  private static HttpResponse<String> get(String pathAndQuery) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode ok(HttpResponse<String> r) throws IOException {
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }

  @Test
  void optionsChangeTheSearchTheyName() throws Exception {
    JsonNode blend = ok(get("/search?q=lava+and+ash&k=5"));
    JsonNode rrf = ok(get("/search?q=lava+and+ash&k=5&fusion=rrf&dense-depth=20&bm25-depth=5&ef=50"));
    assertTrue(blend.get("results").get(0).get("score").asDouble() > 0.5, blend.toString());
    assertTrue(rrf.get("results").get(0).get("score").asDouble() <= 2.0 / 61 + 1e-6, rrf.toString());

    assertEquals(0, ok(get("/search?q=lava&mode=dense&min-score=0.999")).get("results").size());
    assertEquals(5, ok(get("/search?q=lava&mode=dense&k=5&min-score=off&max-drop=off")).get("results").size());
    assertEquals(1, ok(post("/search", "{\"q\": \"lava\", \"mode\": \"dense\", \"max-drop\": 0}"))
        .get("results").size());
    JsonNode posted = ok(post("/search", "{\"q\": \"git commit\", \"k\": 3, \"ef\": 40, \"feedback\": false,"
        + " \"rerank\": false, \"rewriter\": \"keywords\", \"alpha\": 0.3, \"rerank-depth\": 10}"));
    assertEquals("git#0", posted.get("results").get(0).get("chunk_id").asText());
    ok(get("/context?q=lava&budget=100&feedback=true&rewriter=rm3"));
  }

  @Test
  void refusalsNameTheOptionAndTheLimit() throws Exception {
    Map<String, String> cases = new LinkedHashMap<>();
    cases.put("/search?q=x&ef=51", "ef must be <= 50, this server's limit (--max-ef), was 51");
    cases.put("/search?q=x&dense-depth=21", "dense-depth must be <= 20, this server's limit (--max-depth), was 21");
    cases.put("/search?q=x&bm25-depth=1000", "bm25-depth must be <= 20, this server's limit (--max-depth)");
    cases.put("/search?q=x&rerank-depth=11", "rerank-depth must be <= 10, this server's limit (--max-rerank-depth)");
    cases.put("/search?q=x&dense-depth=0", "dense-depth must be >= 1, was 0");
    cases.put("/search?q=x&ef=many", "ef must be an integer in 0..50, was 'many'");
    cases.put("/search?q=x&alpha=2", "alpha must be in [0, 1], was 2.0");
    cases.put("/search?q=x&fusion=max", "fusion must be rrf or blend, was 'max'");
    cases.put("/search?q=x&rerank=yes", "rerank must be true or false, was 'yes'");
    cases.put("/search?q=x&rerank=true", "rerank cannot be switched on: this server has no reranker model");
    cases.put("/search?q=x&rewriter=hyde", "rewriter 'hyde' is unknown; known rewriters: keywords, none, rm3");
    cases.put("/search?q=x&efs=3", "unknown parameter 'efs'");
    cases.put("/search?q=x&ef=3&ef=4", "ef is given 2 times");
    cases.put("/search?q=x&min-score=high", "min-score must be a finite number, was 'high'");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      HttpResponse<String> r = get(c.getKey());
      assertEquals(400, r.statusCode(), c.getKey() + " → " + r.body());
      String error = JSON.readTree(r.body()).get("error").asText();
      assertTrue(error.contains(c.getValue()), c.getKey() + " → " + error);
    }
    for (Map.Entry<String, String> c : Map.of(
        "{\"q\": \"x\", \"ef\": 500}", "ef must be <= 50, this server's limit (--max-ef)",
        "{\"q\": \"x\", \"feedback\": [true]}", "feedback must be a boolean",
        "{\"q\": \"x\", \"fusoin\": \"rrf\"}", "unknown field 'fusoin'").entrySet()) {
      HttpResponse<String> r = post("/search", c.getKey());
      assertEquals(400, r.statusCode(), c.getKey() + " → " + r.body());
      assertTrue(JSON.readTree(r.body()).get("error").asText().contains(c.getValue()), r.body());
    }
  }

  @Test
  void theLimitsAndTheDefaultRewriterAreLoggedAtStartAndAnUnknownOneRefused() throws Exception {
    ServerConfig config = ServerConfig.of("127.0.0.1", 0, 1).withLimits(new RequestLimits(7, 8, 9))
        .withRewriter("keywords");
    try (CapturedLog log = new CapturedLog(SearchServer.class);
        SearchServer other = SearchServer.start(searchers, config)) {
      assertTrue(log.events().contains("per-request limits: ef <= 7, dense-depth and bm25-depth <= 8,"
          + " rerank-depth <= 9; rewriter for requests that name none: keywords"), log.events().toString());
      assertTrue(other.port() > 0);
    }
    SettingException unknown = assertThrows(SettingException.class,
        () -> SearchServer.start(searchers, config.withRewriter("hyde")));
    assertEquals(Setting.REWRITER, unknown.setting());
  }

  @Test
  void everyDeclaredOptionIsReadFromBothForms() throws Exception {
    Map<RequestOption, String> values = new LinkedHashMap<>();
    for (RequestOption o : RequestOption.values()) {
      values.put(o, switch (o.type) {
        case INTEGER -> "5";
        case NUMBER, GATE -> "0.5";
        case BOOLEAN -> "false";
        case FUSION -> "rrf";
        case STRING -> "none";
      });
    }
    StringBuilder query = new StringBuilder("/search?q=lava");
    StringBuilder body = new StringBuilder("{\"q\": \"lava\"");
    values.forEach((o, v) -> {
      query.append('&').append(o.parameter).append('=').append(v);
      body.append(", \"").append(o.parameter).append("\": ").append(o.type == RequestOption.Type.STRING
          || o.type == RequestOption.Type.FUSION ? "\"" + v + "\"" : v);
    });
    ok(get(query.toString()));
    ok(post("/search", body.append('}').toString()));
    assertEquals(List.of("ef", "fusion", "alpha", "dense-depth", "bm25-depth", "min-score", "max-drop", "rerank",
        "rerank-depth", "feedback", "rewriter"), RequestOption.names());
  }
}
