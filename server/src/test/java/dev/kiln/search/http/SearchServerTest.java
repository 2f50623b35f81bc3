package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.Searcher;
import dev.kiln.search.SnapshotFixture;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real server on 127.0.0.1 over real snapshots. */
class SearchServerTest {
  @TempDir static Path root;
  private static TextEmbedder embedder;
  private static ReloadingSearcher searchers;
  private static SearchServer server;
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1) // the server speaks HTTP/1.1 only: no h2c upgrade attempts
      .connectTimeout(Duration.ofSeconds(10)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws IOException {
    embedder = SnapshotFixture.openEmbedder();
    new SnapshotFixture(embedder).write(root);
    searchers = new ReloadingSearcher(root, SearchOptions.defaults(), 0);
    server = SearchServer.start(searchers, "127.0.0.1", 0, 8);
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

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static List<String> ids(JsonNode response) {
    List<String> out = new ArrayList<>();
    response.get("results").forEach(r -> out.add(r.get("chunk_id").asText()));
    return out;
  }

  @Test
  void getSearchWithModeKAndFilter() throws Exception {
    HttpResponse<String> r = get("/search?q=" + enc("pyroclastic flows") + "&k=3&mode=bm25");
    assertEquals(200, r.statusCode(), r.body());
    JsonNode body = JSON.readTree(r.body());
    assertEquals(List.of("volcano#1"), ids(body));
    assertEquals(searchers.currentId(), body.get("snapshot").asText());
    assertEquals("bm25", body.get("mode").asText());

    JsonNode filtered = JSON.readTree(get("/search?q=" + enc("commits and ash") + "&k=10&mode=hybrid"
        + "&filter=topic:software").body());
    assertFalse(ids(filtered).isEmpty());
    filtered.get("results").forEach(h -> assertEquals("software", h.get("metadata").get("topic").asText()));
  }

  @Test
  void postSearchAndContext() throws Exception {
    JsonNode body = JSON.readTree(post("/search",
        "{\"q\": \"largest animal in the ocean\", \"k\": 2, \"mode\": \"dense\","
            + " \"filter\": {\"topic\": [\"biology\", \"geology\"]}}").body());
    assertEquals("whale#0", ids(body).get(0));
    assertEquals(2, ids(body).size());

    JsonNode ctx = JSON.readTree(post("/context",
        "{\"q\": \"volcano lava\", \"k\": 5, \"budget\": 60}").body());
    assertTrue(ctx.get("tokens").asInt() <= 60 && ctx.get("tokens").asInt() > 0, ctx.toString());
    assertTrue(ctx.get("text").asText().startsWith("[1] volcano › Volcanoes (score "), ctx.toString());
    assertEquals(60, ctx.get("budget").asInt());

    JsonNode none = JSON.readTree(post("/search", "{\"q\": \"the of and\", \"mode\": \"bm25\"}").body());
    assertEquals(0, ids(none).size());
    assertEquals("no relevant context", none.get("reason").asText());
  }

  @Test
  void healthAndSnapshot() throws Exception {
    JsonNode health = JSON.readTree(get("/health").body());
    assertEquals("ok", health.get("status").asText());
    JsonNode snap = JSON.readTree(get("/snapshot").body());
    assertEquals(searchers.currentId(), snap.get("snapshot").asText());
    assertEquals(searchers.currentId(), snap.get("manifest").get("id").asText());
    assertEquals(8, snap.get("chunks").asInt());
  }

  @Test
  void badInputIsA400WithAJsonError() throws Exception {
    Map<String, String> cases = Map.of(
        "/search?q=x&k=0", "k must be an integer in 1..1000",
        "/search?q=x&k=1001", "k must be an integer in 1..1000",
        "/search?q=x&k=ten", "k must be an integer in 1..1000",
        "/search?q=x&mode=sparse", "unknown search mode 'sparse'",
        "/search?q=x&filter=novalue", "malformed filter 'novalue'",
        "/search?k=3", "missing query",
        "/search?q=" + "a".repeat(8 * 1024 + 1), "longer than 8192 bytes");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      HttpResponse<String> r = get(c.getKey());
      assertEquals(400, r.statusCode(), c.getKey());
      assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
      String error = JSON.readTree(r.body()).get("error").asText();
      assertTrue(error.contains(c.getValue()), c.getKey() + " → " + error);
    }
    assertEquals(400, post("/search", "{not json").statusCode());
    assertEquals(400, post("/search", "{\"q\": \"x\", \"k\": \"3\"}").statusCode());
    assertEquals(400, post("/context", "{\"q\": \"x\", \"budget\": 0}").statusCode());
  }

  @Test
  void metricsAreInPrometheusTextFormat() throws Exception {
    get("/search?q=lava&mode=bm25");
    get("/search?q=lava&k=0");
    get("/search?q=volcanic%20glass&mode=hybrid");
    get("/search?q=volcanic%20%20glass&mode=hybrid"); // the same query to the cache: whitespace normalised
    HttpResponse<String> r = get("/metrics");
    assertEquals(200, r.statusCode());
    assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));
    String text = r.body();
    assertTrue(text.contains("# TYPE kiln_request_duration_seconds histogram"), text);
    assertTrue(text.contains("kiln_request_duration_seconds_bucket{endpoint=\"search\",le=\"+Inf\"} "), text);
    assertTrue(text.contains("kiln_request_duration_seconds_count{endpoint=\"search\"} "), text);
    assertTrue(text.matches("(?s).*kiln_requests_total\\{endpoint=\"search\",code=\"200\"} [1-9].*"), text);
    assertTrue(text.matches("(?s).*kiln_errors_total\\{endpoint=\"search\"} [1-9].*"), text);
    assertTrue(text.matches("(?s).*\nkiln_query_cache_hits_total [1-9].*"), text);
    assertTrue(text.matches("(?s).*\nkiln_query_cache_misses_total [1-9].*"), text);
  }

  /**
   * Several snapshot swaps under concurrent query load: no query fails, every query is answered by
   * the snapshot that was current around it, and an old snapshot is closed only after the last
   * query holding it has finished.
   */
  @Test
  void hotReloadUnderLoadFailsNoQuery() throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    Map<String, AtomicInteger> answeredBy = new ConcurrentHashMap<>();
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    AtomicInteger total = new AtomicInteger();
    List<String> queries = List.of("lava", "commits on a branch", "long slow runs", "krill");
    List<Thread> clients = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int id = t;
      Thread client = new Thread(() -> {
        int i = 0;
        while (!stop.get()) {
          String mode = (i + id) % 3 == 0 ? "hybrid" : "bm25";
          String q = queries.get(i++ % queries.size());
          try {
            HttpResponse<String> r = get("/search?k=3&mode=" + mode + "&q=" + enc(q));
            if (r.statusCode() != 200) {
              failures.add(r.statusCode() + " " + r.body());
            } else {
              answeredBy.computeIfAbsent(JSON.readTree(r.body()).get("snapshot").asText(),
                  k -> new AtomicInteger()).incrementAndGet();
            }
          } catch (Exception e) {
            failures.add(e.toString());
          }
          total.incrementAndGet();
        }
      });
      client.start();
      clients.add(client);
    }
    List<String> served = new ArrayList<>(List.of(searchers.currentId()));
    try {
      for (int swap = 0; swap < 3; swap++) {
        ReloadingSearcher.Lease inFlight = searchers.acquire(); // a query that spans the swap
        String next = new SnapshotFixture(embedder).write(root);
        assertTrue(searchers.checkNow(), "CURRENT changed, so the service must swap");
        assertEquals(next, searchers.currentId());
        awaitAnswersFrom(next, answeredBy, failures);
        // The old snapshot still answers the query that acquired it before the swap ...
        assertEquals("volcano#1", inFlight.searcher().bm25("pyroclastic", 1).get(0).chunkId());
        inFlight.close();
        // ... and is closed once that query, and any client query still holding it, has released it.
        awaitClosed(inFlight.searcher());
        served.add(next);
      }
      assertFalse(searchers.checkNow(), "no change, no swap");
    } finally {
      stop.set(true);
      for (Thread c : clients) {
        c.join();
      }
    }
    assertEquals(List.of(), List.copyOf(failures));
    assertEquals(3, searchers.reloads());
    for (String id : served.subList(1, served.size())) {
      assertTrue(answeredBy.get(id).get() > 0, "no query answered by " + id);
    }
    assertTrue(total.get() >= 20, "load was too light to mean anything: " + total.get());
  }

  /**
   * Waits for the condition "the searcher is closed": a client query that acquired it just before the
   * swap may still be running when the test releases its own lease, and closing waits for it.
   */
  private static void awaitClosed(Searcher s) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      try {
        s.bm25("pyroclastic", 1);
      } catch (RuntimeException closed) {
        return;
      }
      assertTrue(System.nanoTime() < deadline,
          "snapshot " + s.snapshotId() + " still open 60 s after its last lease was released");
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  /** Waits for the condition "clients got answers from {@code id}", not for a fixed time. */
  private static void awaitAnswersFrom(String id, Map<String, AtomicInteger> answeredBy,
      ConcurrentLinkedQueue<String> failures) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (answeredBy.getOrDefault(id, new AtomicInteger()).get() < 5 && failures.isEmpty()) {
      assertTrue(System.nanoTime() < deadline, "no answers from " + id + " within 60 s");
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  @Test
  void queriesInEveryModeAnswerOverHttp() throws Exception {
    for (SearchMode mode : SearchMode.values()) {
      HttpResponse<String> r = get("/search?q=" + enc("sourdough loaf") + "&k=2&mode=" + mode.label());
      assertEquals(200, r.statusCode(), r.body());
      assertEquals("bread#0", ids(JSON.readTree(r.body())).get(0), mode.label());
    }
  }
}
