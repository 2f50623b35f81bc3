package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.ShardedCorpus;
import dev.kiln.search.rerank.TinyOnnxModel;
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
 * A router with a reranker ({@code kiln route --rerank-model}) over two shard groups answers as one
 * server with the same reranker: it merges the rerank depth of candidates as that server retrieves them,
 * fetches their text from the groups, reranks them with the same cross-encoder and gates on its scores.
 * The cross-encoder is {@link TinyOnnxModel}, a real ONNX graph run by the real DJL path (no trained
 * cross-encoder can be obtained here, docs/ARCHITECTURE.md), whose scores reorder the candidates.
 */
class RouterRerankITCase {
  @TempDir
  static Path root;
  @TempDir
  static Path models;
  static Cluster cluster = new Cluster();
  static Cluster.Server whole;
  static Cluster.Server g0;
  static Cluster.Server g1;
  static RouterServer router;

  @BeforeAll
  static void start() throws Exception {
    ShardedCorpus.write(root, 900, 4, 23);
    Path reranker = TinyOnnxModel.writeDirectory(models.resolve("tiny-cross-encoder"));
    SearchOptions reranking = Cluster.DEFAULTS.withReranker(reranker, 25);
    whole = cluster.serve(root, null, 0, reranking);
    // The groups are started as the single server is (their reranker unused: the router reranks).
    g0 = cluster.serve(root, "0-1", 0, reranking);
    g1 = cluster.serve(root, "2-3", 0, reranking);
    router = cluster.route(RouterConfig.of(List.of(List.of(g0.uri()), List.of(g1.uri()))).withDeadlineMs(20_000)
        .withRerankModel(reranker));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void rerankedSearchesAreTheSingleServersAnswer() throws Exception {
    List<String> options = List.of("", "&rerank-depth=40", "&rerank-depth=5", "&rerank=false", "&max-drop=2",
        "&fusion=rrf&rerank-depth=12");
    int reordered = 0;
    int hits = 0;
    for (String q : List.of("lava magma", "whale krill ocean", "commit branch rebase", "planet comet orbit")) {
      for (String mode : List.of("bm25", "dense", "hybrid")) {
        for (String filter : List.of("", "&filter=lang%3Den")) {
          String base = "/search?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + "&mode=" + mode + "&k=8"
              + filter;
          for (String o : options) {
            JsonNode expected = RouterEqualityITCase.ok(Cluster.get(whole.port(), base + o));
            Cluster.assertSameAnswer(expected, RouterEqualityITCase.ok(Cluster.get(router.port(), base + o)), 1e-5);
            hits += expected.path("results").size();
          }
          JsonNode plain = RouterEqualityITCase.ok(Cluster.get(whole.port(), base + "&rerank=false"));
          if (!RouterEqualityITCase.sameChunks(plain, RouterEqualityITCase.ok(Cluster.get(whole.port(), base)))) {
            reordered++;
          }
        }
      }
    }
    assertTrue(hits > 500, "the searches found hits to compare: " + hits);
    // The reranker changed the answers the router matched: a router that did not rerank would have failed.
    assertTrue(reordered > 15, "the reranker changed answers: " + reordered);
  }

  @Test
  void contextOfARerankedSearchIsTheSingleServersAnswer() throws Exception {
    String path = "/context?q=lava+ash&mode=hybrid&k=6&budget=300";
    RouterEqualityITCase.assertSameContext(RouterEqualityITCase.ok(Cluster.get(whole.port(), path)),
        RouterEqualityITCase.ok(Cluster.get(router.port(), path)));
  }

  @Test
  void aRouterWithoutTheRerankerIsRefusedOverReRankingGroups() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> cluster.route(
        RouterConfig.of(List.of(List.of(g0.uri()), List.of(g1.uri())))));
    assertTrue(e.getMessage().contains("--rerank-model"), e.getMessage());
  }

  @Test
  void aBadRerankDepthIsTheSame400() throws Exception {
    for (String path : List.of("/search?q=lava&rerank-depth=0", "/search?q=lava&rerank=perhaps")) {
      HttpResponse<String> single = Cluster.get(whole.port(), path);
      HttpResponse<String> routed = Cluster.get(router.port(), path);
      assertEquals(400, single.statusCode(), path);
      assertEquals(400, routed.statusCode(), path);
      assertEquals(RouterEqualityITCase.JSON.readTree(single.body()), RouterEqualityITCase.JSON.readTree(
          routed.body()), path);
    }
  }
}
