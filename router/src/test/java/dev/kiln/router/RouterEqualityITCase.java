package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.ShardedCorpus;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.LexicalFeedback;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A router over two shard groups (shards 0-1 and 2-3, separate servers on loopback), all with Kiln's
 * default options (hybrid's dense and lexical feedback passes included), answers every search as one
 * server over all four shards: the same hits in the same order with the same fields, BM25 scores
 * equal, dense and fused ones within float rounding (the query's embedding can differ in its last bit
 * between processes), for many queries in every mode, with filters, for several k, and with
 * per-request retrieval options (ef, fusion and alpha, depths, gates, feedback off); and a bad
 * parameter or option is the same 400.
 */
class RouterEqualityITCase {
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir
  static Path root;
  static Cluster cluster = new Cluster();
  static Cluster.Server whole;
  /** One server without the feedback passes: the answers they change show that the router runs them. */
  static Cluster.Server withoutFeedback;
  static RouterServer router;

  @BeforeAll
  static void start() throws Exception {
    ShardedCorpus.write(root, 1500, 4, 11);
    whole = cluster.serve(root, null, 0);
    withoutFeedback = cluster.serve(root, null, 0, Cluster.DEFAULTS.toBuilder()
        .denseFeedback(DenseFeedback.OFF).lexicalFeedback(LexicalFeedback.OFF).build());
    Cluster.Server g0 = cluster.serve(root, "0-1", 0);
    Cluster.Server g1 = cluster.serve(root, "2-3", 0);
    router = cluster.route(RouterConfig.of(List.of(List.of(g0.uri()), List.of(g1.uri()))).withDeadlineMs(10_000));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void everySearchIsTheSingleServersAnswer() throws Exception {
    List<String> queries = List.of("lava magma", "whale krill ocean", "commit branch rebase", "oven", "storm thunder",
        "planet comet orbit signal", "fuel engine piston market price trade", "glacier desert", "pawn king river");
    List<String> filters = List.of("", "&filter=topic%3Dgeology", "&filter=lang%3Dfr",
        "&filter=topic%3Dgames&filter=lang%3Den");
    int hits = 0;
    int requests = 0;
    int changedByFeedback = 0;
    for (String q : queries) {
      for (String mode : List.of("bm25", "dense", "hybrid")) {
        for (String filter : filters) {
          for (int k : new int[] {1, 7, 30}) {
            String path = "/search?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + "&mode=" + mode + "&k=" + k
                + filter;
            JsonNode expected = ok(Cluster.get(whole.port(), path));
            JsonNode routed = ok(Cluster.get(router.port(), path));
            Cluster.assertSameAnswer(expected, routed, 1e-5);
            if (mode.equals("hybrid") && !sameChunks(expected, ok(Cluster.get(withoutFeedback.port(), path)))) {
              changedByFeedback++;
            }
            hits += expected.path("results").size();
            requests++;
          }
        }
      }
    }
    assertEquals(queries.size() * 3 * filters.size() * 3, requests);
    assertTrue(hits > 2000, "the searches found hits to compare: " + hits);
    assertTrue(changedByFeedback > 20, "the feedback passes changed hybrid answers the router matched: "
        + changedByFeedback);
  }

  /** The same chunks in the same order. */
  static boolean sameChunks(JsonNode a, JsonNode b) {
    return a.path("results").findValuesAsText("chunk_id").equals(b.path("results").findValuesAsText("chunk_id"));
  }

  @Test
  void aPostedSearchIsTheSingleServersAnswer() throws Exception {
    String body = "{\"q\":\"lava ash crust\",\"mode\":\"hybrid\",\"k\":12,\"filter\":[\"lang=en\"]}";
    JsonNode expected = ok(Cluster.post(whole.port(), "/search", body));
    Cluster.assertSameAnswer(expected, ok(Cluster.post(router.port(), "/search", body)), 1e-5);
    assertEquals(12, expected.path("results").size());
  }

  @Test
  void contextIsTheSingleServersAnswer() throws Exception {
    int blocks = 0;
    for (String q : List.of("lava magma", "whale krill ocean", "oven storm")) {
      for (String mode : List.of("bm25", "dense", "hybrid")) {
        for (int budget : new int[] {40, 400}) {
          String path = "/context?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + "&mode=" + mode
              + "&k=10&filter=lang%3Den&budget=" + budget;
          JsonNode expected = ok(Cluster.get(whole.port(), path));
          assertSameContext(expected, ok(Cluster.get(router.port(), path)));
          blocks += expected.path("blocks").size();
        }
      }
    }
    assertTrue(blocks > 20, "the contexts held blocks to compare: " + blocks);
    String body = "{\"q\":\"lava ash crust\",\"mode\":\"hybrid\",\"k\":6,\"budget\":300}";
    assertSameContext(ok(Cluster.post(whole.port(), "/context", body)), ok(Cluster.post(router.port(), "/context",
        body)));
    // A bad budget is the same 400, read by the groups as /context reads it.
    HttpResponse<String> single = Cluster.get(whole.port(), "/context?q=lava&budget=0");
    HttpResponse<String> routed = Cluster.get(router.port(), "/context?q=lava&budget=0");
    assertEquals(400, single.statusCode(), single.body());
    assertEquals(single.statusCode(), routed.statusCode());
    assertEquals(JSON.readTree(single.body()), JSON.readTree(routed.body()));
  }

  /** The same context: blocks, texts and counts equal, scores within float rounding. */
  static void assertSameContext(JsonNode expected, JsonNode routed) {
    var e = expected.deepCopy();
    var r = routed.deepCopy();
    List<Double> es = e.findValues("score").stream().map(JsonNode::asDouble).toList();
    List<Double> rs = r.findValues("score").stream().map(JsonNode::asDouble).toList();
    assertEquals(es.size(), rs.size(), routed.toString());
    for (int i = 0; i < es.size(); i++) {
      assertEquals(es.get(i), rs.get(i), 1e-5, "block " + i);
    }
    e.path("blocks").forEach(b -> ((ObjectNode) b).remove("score"));
    r.path("blocks").forEach(b -> ((ObjectNode) b).remove("score"));
    assertEquals(e, r);
  }

  @Test
  void anEndpointTheRouterDoesNotRouteIsA404NamingWhatItRoutes() throws Exception {
    HttpResponse<String> routed = Cluster.get(router.port(), "/explain?q=lava");
    assertEquals(404, routed.statusCode(), routed.body());
    assertTrue(routed.body().contains("/search and /context"), routed.body());
  }

  @Test
  void theResponseNamesTheSnapshot() throws Exception {
    JsonNode routed = ok(Cluster.get(router.port(), "/search?q=lava"));
    assertEquals(whole.searchers().currentId(), routed.path("snapshot").asText());
  }

  @Test
  void aBadParameterIsTheSame400() throws Exception {
    for (String path : List.of("/search?q=lava&k=0", "/search?q=lava&mode=fuzzy", "/search?k=3")) {
      HttpResponse<String> single = Cluster.get(whole.port(), path);
      HttpResponse<String> routed = Cluster.get(router.port(), path);
      assertEquals(400, single.statusCode(), path);
      assertEquals(single.statusCode(), routed.statusCode(), path);
      assertEquals(JSON.readTree(single.body()), JSON.readTree(routed.body()), path);
    }
  }

  @Test
  void perRequestRetrievalOptionsGiveTheSingleServersAnswer() throws Exception {
    // Each set of options as a query string; the groups read them as /search reads them, every phase
    // and the router's merge, feedback and gate honour them.
    List<String> options = List.of("&ef=12", "&ef=300", "&fusion=rrf", "&fusion=blend&alpha=0.2",
        "&fusion=blend&alpha=0.9&dense-depth=15&bm25-depth=25", "&dense-depth=8&bm25-depth=8", "&feedback=false",
        "&min-score=0.35", "&max-drop=0.05", "&min-score=0.2&max-drop=0.1&fusion=rrf&ef=30",
        "&feedback=false&fusion=rrf&bm25-depth=40");
    int changed = 0;
    int hits = 0;
    for (String q : List.of("lava magma", "whale krill ocean", "planet comet orbit signal", "pawn king river")) {
      for (String mode : List.of("bm25", "dense", "hybrid")) {
        for (String filter : List.of("", "&filter=lang%3Den")) {
          String base = "/search?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + "&mode=" + mode + "&k=10"
              + filter;
          JsonNode plain = ok(Cluster.get(whole.port(), base));
          for (String o : options) {
            JsonNode expected = ok(Cluster.get(whole.port(), base + o));
            Cluster.assertSameAnswer(expected, ok(Cluster.get(router.port(), base + o)), 1e-5);
            if (!expected.path("results").equals(plain.path("results"))) {
              changed++;
            }
            hits += expected.path("results").size();
          }
        }
      }
    }
    assertTrue(hits > 500, "the searches found hits to compare: " + hits);
    // Without the options the router would have answered the plain search: these would have failed.
    assertTrue(changed > 60, "the options changed answers the router matched: " + changed);
    String body = "{\"q\":\"lava ash crust\",\"mode\":\"hybrid\",\"k\":12,\"fusion\":\"rrf\",\"ef\":50,"
        + "\"feedback\":false,\"min-score\":0.3}";
    Cluster.assertSameAnswer(ok(Cluster.post(whole.port(), "/search", body)),
        ok(Cluster.post(router.port(), "/search", body)), 1e-5);
  }

  @Test
  void aBadOptionIsTheSame400() throws Exception {
    for (String path : List.of("/search?q=lava&ef=-1", "/search?q=lava&alpha=x", "/search?q=lava&fusion=max",
        "/search?q=lava&dense-depth=0", "/search?q=lava&rewriter=nonesuch", "/search?q=lava&rerank=true",
        "/search?q=lava&feedback=maybe", "/search?q=lava&ef=99999999")) {
      HttpResponse<String> single = Cluster.get(whole.port(), path);
      HttpResponse<String> routed = Cluster.get(router.port(), path);
      assertEquals(400, single.statusCode(), path);
      assertEquals(400, routed.statusCode(), path);
      assertEquals(JSON.readTree(single.body()), JSON.readTree(routed.body()), path);
    }
  }

  @Test
  void healthShowsEachGroupAndReplica() throws Exception {
    HttpResponse<String> health = Cluster.get(router.port(), "/health");
    assertEquals(200, health.statusCode(), health.body());
    JsonNode h = JSON.readTree(health.body());
    assertEquals("ok", h.path("status").asText());
    assertEquals("0-1", h.path("groups").get(0).path("shards").asText());
    assertEquals("2-3", h.path("groups").get(1).path("shards").asText());
    assertTrue(h.path("groups").get(1).path("replicas").get(0).path("alive").asBoolean());
  }

  static JsonNode ok(HttpResponse<String> response) throws Exception {
    assertEquals(200, response.statusCode(), response.body());
    return JSON.readTree(response.body());
  }
}
