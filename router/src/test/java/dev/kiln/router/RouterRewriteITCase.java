package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.ShardedCorpus;
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
 * Query rewriting through a router answers as one server: groups started with {@code --prf} (RM3) are
 * served, the router runs the rewriter once over the routed first pass (BM25 on every group with the
 * summed statistics, the chunks' text fetched and analysed by a group, document ratios summed), and
 * the groups search with the rewritten terms. Checked against one server with {@code --prf}, for the
 * server's RM3, a request's {@code rewriter=keywords}, {@code rewriter=none} and {@code feedback=false}.
 */
class RouterRewriteITCase {
  @TempDir
  static Path root;
  static Cluster cluster = new Cluster();
  static Cluster.Server whole;
  static RouterServer router;

  @BeforeAll
  static void start() throws Exception {
    ShardedCorpus.write(root, 1200, 4, 31);
    SearchOptions prf = Cluster.DEFAULTS.withPrf(true);
    whole = cluster.serve(root, null, 0, prf);
    Cluster.Server g0 = cluster.serve(root, "0", 0, prf);
    Cluster.Server g1 = cluster.serve(root, "1-3", 0, prf);
    router = cluster.route(RouterConfig.of(List.of(List.of(g0.uri()), List.of(g1.uri()))).withDeadlineMs(20_000));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void rewrittenSearchesAreTheSingleServersAnswer() throws Exception {
    List<String> options = List.of("", "&rewriter=keywords", "&rewriter=rm3&feedback=false", "&rewriter=none",
        "&feedback=false", "&rewriter=keywords&fusion=rrf&bm25-depth=30");
    int rewritten = 0;
    int hits = 0;
    for (String q : List.of("lava magma", "whale krill ocean", "commit branch rebase", "storm thunder",
        "planet comet orbit signal", "glacier desert")) {
      for (String mode : List.of("bm25", "hybrid", "dense")) {
        for (String filter : List.of("", "&filter=lang%3Den")) {
          String base = "/search?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + "&mode=" + mode + "&k=10"
              + filter;
          JsonNode none = RouterEqualityITCase.ok(Cluster.get(whole.port(), base + "&rewriter=none"));
          for (String o : options) {
            JsonNode expected = RouterEqualityITCase.ok(Cluster.get(whole.port(), base + o));
            Cluster.assertSameAnswer(expected, RouterEqualityITCase.ok(Cluster.get(router.port(), base + o)), 1e-5);
            hits += expected.path("results").size();
            if (!expected.path("results").equals(none.path("results"))) {
              rewritten++;
            }
          }
        }
      }
    }
    assertTrue(hits > 1000, "the searches found hits to compare: " + hits);
    // The rewriters changed the answers the router matched: a router that did not rewrite would have failed.
    assertTrue(rewritten > 30, "the rewriters changed answers: " + rewritten);
  }

  @Test
  void aPostedRewrittenSearchIsTheSingleServersAnswer() throws Exception {
    String body = "{\"q\":\"lava ash crust\",\"mode\":\"bm25\",\"k\":12,\"rewriter\":\"keywords\"}";
    Cluster.assertSameAnswer(RouterEqualityITCase.ok(Cluster.post(whole.port(), "/search", body)),
        RouterEqualityITCase.ok(Cluster.post(router.port(), "/search", body)), 1e-5);
  }

  @Test
  void anUnknownRewriterIsTheSame400() throws Exception {
    String path = "/search?q=lava&rewriter=nonesuch";
    HttpResponse<String> single = Cluster.get(whole.port(), path);
    HttpResponse<String> routed = Cluster.get(router.port(), path);
    assertEquals(400, single.statusCode(), single.body());
    assertEquals(400, routed.statusCode(), routed.body());
    assertEquals(RouterEqualityITCase.JSON.readTree(single.body()), RouterEqualityITCase.JSON.readTree(routed.body()));
  }
}
