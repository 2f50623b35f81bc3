package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.ShardGroupSearch;
import dev.kiln.search.ShardGroupStats;
import dev.kiln.search.ShardedCorpus;
import dev.kiln.search.http.ApiKeys;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /internal/group} on keyed shard groups (issue 46): only a key without bindings (a
 * router's) may call it, a tenant's key is refused in every phase; the client's key travels in {@code
 * X-Kiln-Client-Key} and is checked as any key (missing or unknown: the single server's 401); and
 * every phase that takes hit references refuses references the client's key may not read, so a caller
 * holding the router's key and forging another tenant's references gets none of their text, vectors
 * or scores. The router refuses a tenant's key as its {@code --group-key-file} at start-up.
 */
class GroupEndpointAuthITCase {
  static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  static final String ROUTER_KEY = "router-full-key-0123456789";
  static final String TENANT_KEY = "tenant-geology-key-0123456789";
  static final List<String> PHASES = List.of("describe", "stats", "legs", "chunks", "rescore", "term_stats",
      "again", "fetch", "context", "parents");
  @TempDir
  static Path root;
  @TempDir
  static Path etc;
  static Cluster cluster = new Cluster();
  static Cluster.Server whole;
  static Cluster.Server g0;
  static String snapshot;

  @BeforeAll
  static void start() throws Exception {
    ShardedCorpus.write(root, 900, 4, 5);
    Path file = etc.resolve("api-keys");
    Files.writeString(file, ROUTER_KEY + "\n" + TENANT_KEY + "  topic=geology\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    ApiKeys keys = ApiKeys.load(file);
    whole = cluster.serve(root, null, 0, Cluster.DEFAULTS, keys);
    g0 = cluster.serve(root, "0-1", 0, Cluster.DEFAULTS, keys);
    snapshot = g0.searchers().currentId();
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void aTenantsKeyCallingAGroupDirectlyIsRefusedInEveryPhase() throws Exception {
    for (String phase : PHASES) {
      ObjectNode body = search("q=lava&mode=bm25&k=10").put("phase", phase);
      HttpResponse<String> r = group(body, TENANT_KEY, TENANT_KEY);
      assertEquals(403, r.statusCode(), phase + ": " + r.body());
      assertTrue(JSON.readTree(r.body()).path("error").asText().contains("/internal/group is for routers"), r.body());
    }
  }

  @Test
  void aMissingOrUnknownClientKeyIsTheSingleServers401() throws Exception {
    HttpResponse<String> single = Cluster.get(whole.port(), "/search?q=lava", "no-such-key-0123456789");
    assertEquals(401, single.statusCode());
    for (String client : new String[] {null, "no-such-key-0123456789"}) {
      HttpResponse<String> r = group(search("q=lava").put("phase", "stats"), ROUTER_KEY, client);
      assertEquals(401, r.statusCode(), r.body());
      assertEquals(JSON.readTree(single.body()), JSON.readTree(r.body()));
    }
    // The router's own describe needs no client.
    assertEquals(200, group(JSON.createObjectNode().put("phase", "describe"), ROUTER_KEY, null).statusCode());
    // Nor does an unknown router key pass: 401 as anywhere.
    assertEquals(401, group(search("q=lava").put("phase", "stats"), "no-such-key-0123456789", TENANT_KEY)
        .statusCode());
  }

  @Test
  void forgedReferencesToAnotherTenantsChunksAreRefusedInEveryPhase() throws Exception {
    List<JsonNode> cooking = references("q=lava+oven+dough&mode=bm25&k=20&filter=topic%3Dcooking");
    List<JsonNode> geology = references("q=lava+oven+dough&mode=bm25&k=20&filter=topic%3Dgeology");
    assertTrue(cooking.size() >= 3 && geology.size() >= 3, cooking + " " + geology);
    // The router's key with an unbound client reads them: the references are real chunks.
    JsonNode fetched = ok(group(phase("fetch", cooking), ROUTER_KEY, ROUTER_KEY));
    List<String> texts = new ArrayList<>();
    fetched.path("hits").forEach(h -> {
      assertEquals("cooking", h.path("metadata").path("topic").asText());
      texts.add(h.path("text").asText());
    });
    // The tenant's own chunks are answered as the router asks for them.
    for (JsonNode h : ok(group(phase("fetch", geology), ROUTER_KEY, TENANT_KEY)).path("hits")) {
      assertEquals("geology", h.path("metadata").path("topic").asText());
    }
    List<JsonNode> mixed = List.of(geology.get(0), cooking.get(0));
    for (List<JsonNode> forged : List.of(cooking, mixed)) {
      for (String p : List.of("fetch", "chunks", "rescore", "again")) {
        HttpResponse<String> r = group(phase(p, forged), ROUTER_KEY, TENANT_KEY);
        assertEquals(403, r.statusCode(), p + ": " + r.body());
        for (String text : texts) {
          assertFalse(r.body().contains(text), p + " leaked a chunk's text: " + r.body());
        }
        assertFalse(r.body().contains("vector") || r.body().contains("scores"), r.body());
      }
    }
    // A reference this group does not serve, or past a shard's end, is refused the same way.
    ArrayNode none = JSON.createArrayNode();
    none.addObject().put("shard", 3).put("doc", 0).put("score", 1.0);
    none.addObject().put("shard", 0).put("doc", 1_000_000).put("score", 1.0);
    for (JsonNode ref : none) {
      assertEquals(403, group(phase("fetch", List.of(ref)), ROUTER_KEY, ROUTER_KEY).statusCode());
    }
  }

  @Test
  void theContextPhasePacksOnlyWhatTheCallerSentForChunksItCannotTieToTheKey() throws Exception {
    List<JsonNode> cooking = references("q=lava+oven+dough&mode=bm25&k=5&filter=topic%3Dcooking");
    JsonNode real = ok(group(phase("fetch", cooking), ROUTER_KEY, ROUTER_KEY)).path("hits").get(0);
    ObjectNode forged = ((ObjectNode) real.deepCopy()).put("text", "forged text");
    ((ObjectNode) forged.path("metadata")).put("parent_id", real.path("chunk_id").asText());
    ObjectNode body = search("q=lava&mode=bm25&k=5").put("phase", "context").put("endpoint", "context");
    body.putObject("response").put("snapshot", snapshot).put("mode", "BM25").putArray("results").add(forged);
    JsonNode packed = ok(group(body, ROUTER_KEY, TENANT_KEY));
    assertTrue(packed.toString().contains("forged text"), packed.toString());
    assertFalse(packed.toString().contains(real.path("text").asText()), packed.toString());
  }

  @Test
  void theRouterRefusesATenantsKeyAsItsGroupKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RouterServer.start(
        RouterConfig.of(List.of(List.of(g0.uri()))).withDeadlineMs(2000).withGroupKey(TENANT_KEY)).close());
    assertTrue(e.getMessage().contains("--group-key-file") && e.getMessage().contains("bound to metadata")
        && e.getMessage().contains("without bindings"), e.getMessage());
  }

  /** The client's search as the router sends it, with the pinned snapshot. */
  private static ObjectNode search(String queryString) {
    return JSON.createObjectNode().put("snapshot", snapshot).put("method", "GET").put("query_string", queryString)
        .put("endpoint", "search");
  }

  /** {@code refs} legs found on group 0 for the router's key and an unbound client. */
  private static List<JsonNode> references(String queryString) throws Exception {
    JsonNode stats = ok(group(search(queryString).put("phase", "stats"), ROUTER_KEY, ROUTER_KEY));
    ShardGroupSearch.Global global = ShardGroupStats.sum(List.of(JSON.treeToValue(stats,
        ShardGroupSearch.Stats.class)), stats.path("filtered").asBoolean());
    ObjectNode legs = search(queryString).put("phase", "legs");
    legs.set("global", JSON.valueToTree(global));
    List<JsonNode> out = new ArrayList<>();
    ok(group(legs, ROUTER_KEY, ROUTER_KEY)).path("legs").get(0).path("hits").forEach(out::add);
    return out;
  }

  /** A phase naming {@code refs}, for the client's unfiltered search. */
  private static ObjectNode phase(String phase, List<JsonNode> refs) throws Exception {
    ObjectNode body = search("q=lava+oven+dough&mode=bm25&k=20").put("phase", phase);
    ArrayNode hits = JSON.createArrayNode();
    refs.forEach(hits::add);
    switch (phase) {
      case "fetch" -> body.set("hits", hits);
      case "chunks" -> body.put("vectors", true).put("terms", true).set("hits", hits);
      case "rescore" -> {
        body.set("hits", hits);
        body.putPOJO("vector", new float[ShardedCorpus.DIMENSION]);
      }
      case "again" -> {
        JsonNode stats = ok(group(search("q=lava").put("phase", "stats"), ROUTER_KEY, ROUTER_KEY));
        body.set("global", JSON.valueToTree(ShardGroupStats.sum(List.of(JSON.treeToValue(stats,
            ShardGroupSearch.Stats.class)), false)));
        body.put("n", 5).put("leg", "bm25").set("within", hits);
        body.putObject("terms").put("lava", 1.0);
      }
      default -> throw new IllegalArgumentException(phase);
    }
    return body;
  }

  /** {@code body} posted to group 0 with {@code X-Api-Key: key} and {@code X-Kiln-Client-Key: client}. */
  private static HttpResponse<String> group(ObjectNode body, String key, String client) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + g0.port() + "/internal/group"))
        .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json").header("X-Api-Key", key)
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
    if (client != null) {
      b.header(RouterServer.CLIENT_KEY, client);
    }
    return Cluster.HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode ok(HttpResponse<String> r) throws Exception {
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }
}
