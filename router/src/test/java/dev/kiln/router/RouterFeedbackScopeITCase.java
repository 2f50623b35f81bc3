package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.ShardedCorpus;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.FeedbackScope;
import dev.kiln.search.rewrite.LexicalFeedback;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The feedback passes' other paths through the router, and the relevance gates: {@code --prf-scope
 * index} (the second dense and BM25 passes search each group again instead of re-scoring the first
 * pass's candidates), RRF fusion, other feedback depths and weights, no common-term cut, and {@code
 * --min-score}/{@code --max-drop} (the groups calibrate the hits they fetch, the router gates), over
 * an uneven split of the shards (0 and 1-3). Answers in every mode equal one server's with the same
 * options.
 */
class RouterFeedbackScopeITCase {
  static final SearchOptions OPTIONS = Cluster.DEFAULTS.toBuilder().feedbackScope(FeedbackScope.INDEX)
      .fusion(FusionMethod.RRF).denseFeedback(new DenseFeedback(5, 0.5))
      .lexicalFeedback(new LexicalFeedback(6, 8, 0.6, 1.0)).minScore(0.3).maxDrop(0.01).build();
  @TempDir
  static Path root;
  static Cluster cluster = new Cluster();
  static Cluster.Server whole;
  static Cluster.Server withoutFeedback;
  static RouterServer router;

  @BeforeAll
  static void start() throws Exception {
    ShardedCorpus.write(root, 1000, 4, 17);
    whole = cluster.serve(root, null, 0, OPTIONS);
    withoutFeedback = cluster.serve(root, null, 0, OPTIONS.toBuilder().denseFeedback(DenseFeedback.OFF)
        .lexicalFeedback(LexicalFeedback.OFF).build());
    Cluster.Server g0 = cluster.serve(root, "0", 0, OPTIONS);
    Cluster.Server g1 = cluster.serve(root, "1-3", 0, OPTIONS);
    router = cluster.route(RouterConfig.of(List.of(List.of(g0.uri()), List.of(g1.uri()))).withDeadlineMs(10_000));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void everySearchWithFeedbackOverTheWholeSnapshotAndGatesIsTheSingleServersAnswer() throws Exception {
    int changed = 0;
    int hits = 0;
    int gated = 0;
    String denseScores = "";
    for (String q : List.of("lava magma", "whale krill ocean", "storm thunder", "planet comet orbit signal")) {
      for (String mode : List.of("bm25", "dense", "hybrid")) {
        for (String filter : List.of("", "&filter=topic%3Dgeology", "&filter=lang%3Dfr")) {
          for (int k : new int[] {1, 25}) {
            String path = "/search?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + "&mode=" + mode + "&k=" + k
                + filter;
            JsonNode expected = RouterEqualityITCase.ok(Cluster.get(whole.port(), path));
            Cluster.assertSameAnswer(expected, RouterEqualityITCase.ok(Cluster.get(router.port(), path)), 1e-5);
            hits += expected.path("results").size();
            if (mode.equals("dense") && filter.isEmpty() && k > 1) {
              denseScores = expected.path("results").findValuesAsText("score").toString();
              if (expected.path("results").size() < k) {
                gated++; // dense finds k without a gate: the gate dropped some
              }
            }
            if (mode.equals("hybrid") && !RouterEqualityITCase.sameChunks(expected,
                RouterEqualityITCase.ok(Cluster.get(withoutFeedback.port(), path)))) {
              changed++;
            }
          }
        }
      }
    }
    assertTrue(hits > 100, "the searches found hits to compare: " + hits);
    assertTrue(changed > 5, "the feedback passes changed answers the router matched: " + changed);
    assertTrue(gated > 0, "the gates dropped hits the router dropped too; dense scores " + denseScores);
  }
}
