package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.search.FederatedSearcher;
import dev.kiln.search.RelevanceGate;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.ShardedCorpus;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.http.ReloadSettings;
import dev.kiln.search.http.ReloadingSearcher;
import dev.kiln.search.http.SearchServer;
import dev.kiln.search.http.ServedRoots;
import dev.kiln.search.http.ServerConfig;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two snapshots roots searched as one: root A (4 shards) served by groups 0-1 and 2-3, root B (2
 * shards) by groups 0 and 1, a router naming both roots ({@code --root}, B weighted 0.6) answers every
 * search as one {@code kiln serve --snapshots A --snapshots B} over every shard of both: the same hits
 * of the same roots in the same order, with the same calibrated scores and the same snapshot label,
 * in every mode, with filters, for several k, with the calibrated merge (Kiln's default) and with RRF
 * and a relevance gate, and with per-request options and rewriters; {@code /context} is refused as the federated server refuses it; and a federated
 * server offered as a group, or a group of a root no {@code --root} names, is refused at start-up.
 */
class RouterFederationITCase {
  static final ObjectMapper JSON = new ObjectMapper();
  /** RRF merge and a relevance gate (the calibrated scores of this corpus sit around 0.5). */
  static final SearchOptions RRF_GATED = Cluster.DEFAULTS.toBuilder().fusion(FusionMethod.RRF).minScore(0.5)
      .build();
  @TempDir
  static Path rootA;
  @TempDir
  static Path rootB;
  static Cluster cluster = new Cluster();
  static Federated defaults;
  static Federated rrfGated;

  /** One federated server over both roots and a router over both roots' groups, of the same options. */
  record Federated(SearchServer whole, RouterServer router) {}

  @BeforeAll
  static void start() throws Exception {
    ShardedCorpus.write(rootA, 900, 4, 5);
    ShardedCorpus.write(rootB, 500, 2, 17);
    defaults = federated(Cluster.DEFAULTS);
    rrfGated = federated(RRF_GATED);
  }

  static Federated federated(SearchOptions options) throws Exception {
    ServedRoots served = new ServedRoots(List.of(
        new ServedRoots.Root(rootA.toString(), new ReloadingSearcher(rootA, options, ReloadSettings.polling(0)), 1.0),
        new ServedRoots.Root(rootB.toString(), new ReloadingSearcher(rootB, options, ReloadSettings.polling(0)), 0.6)),
        options.fusion() == FusionMethod.RRF ? FederatedSearcher.Merge.RRF : FederatedSearcher.Merge.CALIBRATED,
        options.rrfK(), new RelevanceGate(options.minScore(), options.maxDrop()));
    SearchServer whole = SearchServer.start(served, ServerConfig.of("127.0.0.1", 0, 8));
    cluster.closeLater(() -> {
      whole.close();
      served.close();
    });
    Cluster.Server a01 = cluster.serve(rootA, "0-1", 0, options);
    Cluster.Server a23 = cluster.serve(rootA, "2-3", 0, options);
    Cluster.Server b0 = cluster.serve(rootB, "0", 0, options);
    Cluster.Server b1 = cluster.serve(rootB, "1", 0, options);
    // Groups listed in no particular order: the router sorts them by the root each describes.
    RouterServer router = cluster.route(RouterConfig.of(List.of(List.of(b1.uri()), List.of(a01.uri()),
            List.of(b0.uri()), List.of(a23.uri())))
        .withRoots(List.of(new RouterConfig.Root(rootA.toString(), 1.0), new RouterConfig.Root(rootB.toString(), 0.6)))
        .withDeadlineMs(10_000));
    return new Federated(whole, router);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void everySearchIsTheFederatedServersAnswer() throws Exception {
    int hits = compareAll(defaults);
    assertTrue(hits > 500, "the searches found hits to compare: " + hits);
  }

  @Test
  void rrfAndAGateAreTheFederatedServersAnswerToo() throws Exception {
    int hits = compareAll(rrfGated);
    assertTrue(hits > 100, "the searches found hits to compare: " + hits);
  }

  /** Many searches on the server and the router of {@code f}; returns the hits compared. */
  private static int compareAll(Federated f) throws Exception {
    List<String> queries = List.of("lava magma", "whale krill ocean", "oven", "planet comet orbit signal",
        "glacier desert");
    List<String> filters = List.of("", "&filter=topic%3Dgeology", "&filter=lang%3Dfr");
    int hits = 0;
    Set<String> roots = new HashSet<>();
    for (String q : queries) {
      for (String mode : List.of("bm25", "dense", "hybrid")) {
        for (String filter : filters) {
          for (int k : new int[] {1, 8, 60}) {
            String path = "/search?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + "&mode=" + mode + "&k=" + k
                + filter;
            JsonNode expected = ok(Cluster.get(f.whole().port(), path));
            JsonNode routed = ok(Cluster.get(f.router().port(), path));
            Cluster.assertSameAnswer(expected, routed, 1e-5);
            hits += expected.path("results").size();
            routed.path("results").forEach(h -> roots.add(h.path("root").asText()));
          }
        }
      }
    }
    assertEquals(Set.of(rootA.toString(), rootB.toString()), roots, "both roots' hits were compared");
    return hits;
  }

  @Test
  void requestOptionsAndRewritersAreTheFederatedServersAnswer() throws Exception {
    // Each root searches with the request's options and runs its rewriter (the router, once per root);
    // the roots are merged as the federated server merges them, with the server's own options.
    List<String> options = List.of("&rewriter=keywords", "&rewriter=rm3&fusion=rrf", "&ef=20&dense-depth=10",
        "&min-score=0.45", "&feedback=false&alpha=0.3");
    int hits = 0;
    for (String q : List.of("lava magma", "whale krill ocean", "planet comet orbit signal")) {
      for (String mode : List.of("bm25", "dense", "hybrid")) {
        for (String o : options) {
          String path = "/search?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + "&mode=" + mode + "&k=10" + o;
          JsonNode expected = ok(Cluster.get(defaults.whole().port(), path));
          Cluster.assertSameAnswer(expected, ok(Cluster.get(defaults.router().port(), path)), 1e-5);
          hits += expected.path("results").size();
        }
      }
    }
    assertTrue(hits > 200, "the searches found hits to compare: " + hits);
  }

  @Test
  void aPostedSearchIsTheFederatedServersAnswer() throws Exception {
    String body = "{\"q\":\"lava ash crust\",\"mode\":\"hybrid\",\"k\":12,\"filter\":[\"lang=en\"]}";
    JsonNode expected = ok(Cluster.post(defaults.whole().port(), "/search", body));
    Cluster.assertSameAnswer(expected, ok(Cluster.post(defaults.router().port(), "/search", body)), 1e-5);
    assertEquals(12, expected.path("results").size());
    assertTrue(expected.path("snapshot").asText().startsWith(rootA + "="), expected.path("snapshot").asText());
  }

  @Test
  void contextIsRefusedAsTheFederatedServerRefusesIt() throws Exception {
    // A sound request is refused for federation; a bad budget is refused for itself first, as there.
    for (String path : List.of("/context?q=lava&budget=200", "/context?q=lava&budget=0")) {
      HttpResponse<String> single = Cluster.get(defaults.whole().port(), path);
      HttpResponse<String> routed = Cluster.get(defaults.router().port(), path);
      assertEquals(400, single.statusCode(), single.body());
      assertEquals(single.statusCode(), routed.statusCode());
      assertEquals(JSON.readTree(single.body()), JSON.readTree(routed.body()), path);
    }
  }

  @Test
  void healthShowsEachRootsGroups() throws Exception {
    JsonNode h = ok(Cluster.get(defaults.router().port(), "/health"));
    assertEquals("ok", h.path("status").asText());
    assertEquals(rootA.toString(), h.path("roots").get(0).path("root").asText());
    assertEquals(List.of("0-1", "2-3"), h.path("roots").get(0).path("groups").findValuesAsText("shards"));
    assertEquals(List.of("1", "0"), h.path("roots").get(1).path("groups").findValuesAsText("shards"));
  }

  @Test
  void aBadParameterIsTheSame400() throws Exception {
    for (String path : List.of("/search?q=lava&k=0", "/search?q=lava&mode=fuzzy")) {
      HttpResponse<String> single = Cluster.get(defaults.whole().port(), path);
      HttpResponse<String> routed = Cluster.get(defaults.router().port(), path);
      assertEquals(400, single.statusCode(), path);
      assertEquals(single.statusCode(), routed.statusCode(), path);
      assertEquals(JSON.readTree(single.body()), JSON.readTree(routed.body()), path);
    }
  }

  @Test
  void topologiesThatCannotFederateAreRefusedAtStartUp() throws Exception {
    Cluster.Server a01 = cluster.serve(rootA, "0-1", 0);
    Cluster.Server a23 = cluster.serve(rootA, "2-3", 0);
    Cluster.Server b0 = cluster.serve(rootB, "0", 0);
    Cluster.Server b1Rrf = cluster.serve(rootB, "1", 0, RRF_GATED);
    List<RouterConfig.Root> both = List.of(new RouterConfig.Root(rootA.toString(), 1.0),
        new RouterConfig.Root(rootB.toString(), 1.0));
    // A federated kiln serve is not a shard group: refused naming the way to federate, not taken as down.
    refused(RouterConfig.of(List.of(List.of(URI.create("http://127.0.0.1:" + defaults.whole().port())))),
        "--root");
    // Two roots' groups without --root.
    refused(RouterConfig.of(List.of(List.of(a01.uri()), List.of(a23.uri()), List.of(b0.uri()))),
        "name each with --root");
    // A group of a root that no --root names.
    refused(RouterConfig.of(List.of(List.of(a01.uri()), List.of(a23.uri()), List.of(b0.uri())))
        .withRoots(List.of(new RouterConfig.Root(rootA.toString(), 1.0), new RouterConfig.Root("/elsewhere", 1.0))),
        "which no --root names");
    // A root no group serves.
    refused(RouterConfig.of(List.of(List.of(a01.uri()), List.of(a23.uri()))).withRoots(both),
        "no --group serves root " + rootB);
    // Roots searched with different options: no single server searches them so.
    Cluster.Server b0Rrf = cluster.serve(rootB, "0", 0, RRF_GATED);
    refused(RouterConfig.of(List.of(List.of(a01.uri()), List.of(a23.uri()), List.of(b0Rrf.uri()),
        List.of(b1Rrf.uri()))).withRoots(both), "same search options");
  }

  private static void refused(RouterConfig config, String message) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> RouterServer.start(config.withDeadlineMs(2000)).close());
    assertTrue(e.getMessage().contains(message), "expected '" + message + "' in: " + e.getMessage());
  }

  static JsonNode ok(HttpResponse<String> response) throws Exception {
    assertEquals(200, response.statusCode(), response.body());
    return JSON.readTree(response.body());
  }
}
