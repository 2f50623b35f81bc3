package dev.kiln.search.http;

import static dev.kiln.search.SnapshotFixture.chunk;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SnapshotFixture;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web page's endpoints over HTTP, on a real server over two real snapshots behind API keys: the
 * static page and its headers, {@code /snapshots} and {@code /manifest} for unbound keys only,
 * {@code /explain}'s per-leg scores and gate verdicts on the served and on the other snapshot, a bound
 * key's narrowing, and bad input answered 400/404 naming what is wrong.
 */
class InspectionEndpointsTest {
  private static final String KEY = "inspection-full-key-0123456789";
  private static final String ACME_KEY = "inspection-acme-key-0123456789";
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(30)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path root;
  @TempDir static Path etc;
  private static TextEmbedder embedder;
  private static ReloadingSearcher searchers;
  private static SearchServer server;
  private static String older;
  private static String newer;

  @BeforeAll
  static void start() throws Exception {
    embedder = SnapshotFixture.openEmbedder();
    Map<String, String> acme = Map.of("tenant", "acme");
    Map<String, String> globex = Map.of("tenant", "globex");
    older = new SnapshotFixture(embedder).shards(List.of(List.of(
        chunk("refunds", 0, "Refunds", "Refunds are paid within 30 days of a return.", acme),
        chunk("shipping", 0, "Shipping", "Lost parcels are refunded after a claim.", acme)))).write(root);
    newer = new SnapshotFixture(embedder).shards(List.of(List.of(
        chunk("refunds", 0, "Refunds", "Refunds are paid within 30 days of a return.", acme),
        chunk("globex-refunds", 0, "Refunds", "Refunds are paid within 90 days of a return.", globex),
        chunk("returns", 0, "Returns", "Returns are accepted for 60 days.", acme)))).write(root);
    // A gate that keeps only the top hit (and its ties): every other hit is dropped, with its reason.
    searchers = new ReloadingSearcher(root, SearchOptions.defaults().withGates(Double.NaN, 0.0), 0);
    Path keys = etc.resolve("api-keys");
    Files.writeString(keys, KEY + "\n" + ACME_KEY + " tenant=acme\n");
    Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-------"));
    server = SearchServer.start(searchers, ServerConfig.of("127.0.0.1", 0, 2).withApiKeys(ApiKeys.load(keys)));
  }

  @AfterAll
  static void stop() {
    server.close();
    searchers.close();
    embedder.close();
  }

  private static HttpResponse<String> get(String pathAndQuery, String key) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
        .timeout(Duration.ofSeconds(30));
    if (key != null) {
      b.header("Authorization", "Bearer " + key);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode ok(String pathAndQuery, String key) throws Exception {
    HttpResponse<String> r = get(pathAndQuery, key);
    assertEquals(200, r.statusCode(), pathAndQuery + ": " + r.body());
    return JSON.readTree(r.body());
  }

  private static String q(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Test
  void pageIsServedWithoutAKeyUnderAPolicyThatAllowsNoInlineScript() throws Exception {
    for (String path : List.of("/ui", "/ui/", "/ui/index.html")) {
      HttpResponse<String> page = get(path, null);
      assertEquals(200, page.statusCode(), path);
      assertEquals("text/html; charset=utf-8", page.headers().firstValue("Content-Type").orElseThrow());
      String csp = page.headers().firstValue("Content-Security-Policy").orElseThrow();
      assertTrue(csp.contains("script-src 'self'") && csp.contains("default-src 'none'"), csp);
      assertFalse(csp.contains("unsafe-inline"), csp);
      assertEquals("nosniff", page.headers().firstValue("X-Content-Type-Options").orElseThrow());
      assertTrue(page.body().contains("<script src=\"/ui/app.js\" defer></script>"));
    }
    HttpResponse<String> script = get("/ui/app.js", null);
    assertEquals("text/javascript; charset=utf-8", script.headers().firstValue("Content-Type").orElseThrow());
    for (String sink : List.of("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(")) {
      assertFalse(script.body().contains(sink), "the script never writes markup: " + sink);
    }
    HttpResponse<String> missing = get("/ui/../../etc/passwd", null);
    assertTrue(missing.statusCode() == 404 || missing.statusCode() == 400, missing.body());
    assertEquals(404, get("/ui/secrets.json", null).statusCode());
  }

  @Test
  void snapshotsAndManifestsAreForUnboundKeysOnly() throws Exception {
    assertEquals(401, get("/snapshots", null).statusCode());
    HttpResponse<String> bound = get("/snapshots", ACME_KEY);
    assertEquals(403, bound.statusCode(), bound.body());
    assertEquals(403, get("/manifest?snapshot=" + older, ACME_KEY).statusCode());

    JsonNode list = ok("/snapshots", KEY);
    assertEquals(newer, list.get("current").asText());
    assertEquals(2, list.get("snapshots").size());
    for (JsonNode s : list.get("snapshots")) {
      assertEquals(s.get("id").asText().equals(newer), s.get("current").asBoolean());
      assertEquals(s.get("id").asText().equals(newer) ? 3 : 2, s.get("chunks").asInt());
    }
    JsonNode manifest = ok("/manifest?snapshot=" + older, KEY);
    assertEquals(older, manifest.get("manifest").get("id").asText());
    assertFalse(manifest.get("current").asBoolean());
    assertEquals(2, manifest.get("manifest").get("counters").get("chunks").asInt());
  }

  @Test
  void manifestRefusesAnythingButAnIdOfTheRoot() throws Exception {
    HttpResponse<String> traversal = get("/manifest?snapshot=" + q("../../etc"), KEY);
    assertEquals(400, traversal.statusCode());
    assertTrue(traversal.body().contains("not a snapshot id"), traversal.body());
    HttpResponse<String> absent = get("/manifest?snapshot=20990101T000000Z-000000", KEY);
    assertEquals(404, absent.statusCode(), absent.body());
    assertTrue(get("/manifest", KEY).body().contains("missing snapshot"));
    HttpResponse<String> unknown = get("/manifest?snapshot=" + older + "&id=x", KEY);
    assertEquals(400, unknown.statusCode());
    assertTrue(unknown.body().contains("unknown parameter 'id'"), unknown.body());
  }

  @Test
  void explainGivesEachHitItsLegScoresAndTheGatesVerdict() throws Exception {
    JsonNode e = ok("/explain?q=" + q("refunds paid") + "&k=5", KEY);
    assertEquals(newer, e.get("snapshot").asText());
    assertTrue(e.get("gate").get("on").asBoolean());
    JsonNode results = e.get("results");
    assertEquals(3, results.size(), "the ungated hits: " + results);
    List<String> verdicts = new ArrayList<>();
    for (JsonNode hit : results) {
      JsonNode scores = hit.get("scores");
      assertTrue(scores.get("dense").has("rank"), "three chunks, legs looked into 100 deep: " + hit);
      assertEquals(hit.get("score").asDouble(), scores.get("fused").asDouble(), 0.0);
      assertTrue(scores.get("rerank").isNull(), "no reranker configured");
      verdicts.add(hit.get("gate").get("reason").asText());
    }
    assertTrue(results.get(0).get("gate").get("kept").asBoolean(), verdicts.toString());
    assertTrue(verdicts.stream().anyMatch(v -> v.contains("below the top hit's")), verdicts.toString());
    long kept = 0;
    for (JsonNode hit : results) {
      kept += hit.get("gate").get("kept").asBoolean() ? 1 : 0;
    }
    assertEquals(kept, e.get("kept").asLong());
    // What the gate kept is what /search answers.
    JsonNode search = ok("/search?q=" + q("refunds paid") + "&k=5", KEY);
    assertEquals(kept, search.get("results").size());
  }

  @Test
  void explainSearchesAnotherSnapshotOfTheRootOnDemand() throws Exception {
    JsonNode e = ok("/explain?q=" + q("lost parcels") + "&snapshot=" + older, KEY);
    assertEquals(older, e.get("snapshot").asText());
    List<String> chunks = new ArrayList<>();
    e.get("results").forEach(h -> chunks.add(h.get("chunk_id").asText()));
    assertTrue(chunks.contains("shipping#0"), "only the older snapshot has it: " + chunks);
    // Still served: the served snapshot did not change.
    assertEquals(newer, ok("/explain?q=" + q("lost parcels"), KEY).get("snapshot").asText());
  }

  @Test
  void explainHoldsABoundKeyToItsBinding() throws Exception {
    JsonNode e = ok("/explain?q=" + q("refunds paid"), ACME_KEY);
    e.get("results").forEach(h -> assertEquals("acme", h.get("metadata").get("tenant").asText(), h.toString()));
    JsonNode other = ok("/explain?q=" + q("refunds paid") + "&filter=tenant:globex", ACME_KEY);
    assertEquals(0, other.get("results").size());
    assertEquals("no relevant context", other.get("reason").asText());
  }

  @Test
  void explainRefusesBadInputNamingIt() throws Exception {
    HttpResponse<String> unknown = get("/explain?q=x&explain=yes", KEY);
    assertEquals(400, unknown.statusCode());
    assertTrue(unknown.body().contains("unknown parameter 'explain'"), unknown.body());
    assertTrue(get("/explain?k=3", KEY).body().contains("missing query"));
    HttpResponse<String> badId = get("/explain?q=x&snapshot=CURRENT", KEY);
    assertEquals(400, badId.statusCode());
    assertTrue(badId.body().contains("not a snapshot id"), badId.body());
    assertEquals(400, get("/explain?q=x&snapshot=20990101T000000Z-000000", KEY).statusCode());
    HttpResponse<String> post = HTTP.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + server.port() + "/explain")).header("Authorization", "Bearer " + KEY)
        .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(405, post.statusCode());
  }
}
