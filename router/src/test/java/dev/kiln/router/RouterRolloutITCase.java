package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.Searcher;
import dev.kiln.search.ShardedCorpus;
import dev.kiln.search.filter.MetadataFilter;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot published while the router is under load: the groups switch at different moments (one
 * polls CURRENT every 40 ms, the other every 400 ms), yet every answer names one snapshot and is
 * exactly what one process over that snapshot answers; none fails; the router moves to the new one.
 * The load is bounded: 4 clients, at most 12 s and 400 requests each.
 */
class RouterRolloutITCase {
  static final ObjectMapper JSON = new ObjectMapper();
  static final List<String> QUERIES = List.of("lava magma", "whale ocean", "oven loaf yeast", "commit rebase");
  @TempDir
  Path root;

  @Test
  void noAnswerMixesTwoSnapshots() throws Exception {
    String first = ShardedCorpus.write(root, 600, 4, 21);
    try (Cluster cluster = new Cluster()) {
      Cluster.Server g0 = cluster.serve(root, "0-1", 40);
      Cluster.Server g1 = cluster.serve(root, "2-3", 400);
      RouterServer router = cluster.route(RouterConfig.of(List.of(List.of(g0.uri()), List.of(g1.uri())))
          .withDeadlineMs(5000).withPollMs(50));
      // Each group loads its query model on its first query: before the load, not inside its deadline.
      for (Cluster.Server g : List.of(g0, g1)) {
        assertEquals(200, Cluster.get(g.port(), "/search?q=lava&mode=dense").statusCode());
      }
      ExecutorService clients = Executors.newFixedThreadPool(4);
      List<Future<List<JsonNode>>> load = new ArrayList<>();
      long end = System.nanoTime() + 12_000_000_000L;
      // Set by this thread, read by the clients: an AtomicReference, so that they see it.
      AtomicReference<String> second = new AtomicReference<>();
      for (int c = 0; c < 4; c++) {
        int client = c;
        load.add(clients.submit(() -> {
          List<JsonNode> answers = new ArrayList<>();
          for (int i = 0; i < 400 && System.nanoTime() < end; i++) {
            String q = QUERIES.get((client + i) % QUERIES.size());
            String mode = List.of("bm25", "dense", "hybrid").get(i % 3);
            HttpResponse<String> r = Cluster.get(router.port(),
                "/search?q=" + q.replace(' ', '+') + "&mode=" + mode + "&k=8");
            assertEquals(200, r.statusCode(), r.body());
            JsonNode a = JSON.readTree(r.body());
            ((ObjectNode) a).put("_query", q);
            answers.add(a);
            // Stop once the new snapshot has been answered for a while.
            String next = second.get();
            if (next != null && a.path("snapshot").asText().equals(next) && i > 40) {
              break;
            }
          }
          return answers;
        }));
      }
      Thread.sleep(800);
      second.set(ShardedCorpus.write(root, 650, 4, 22)); // publishes: CURRENT names it
      List<JsonNode> answers = new ArrayList<>();
      for (Future<List<JsonNode>> f : load) {
        answers.addAll(f.get());
      }
      clients.shutdown();

      Map<String, Searcher> byId = new HashMap<>();
      try (Searcher a = Searcher.builder().root(root).snapshot(first).options(SearchOptions.defaults()).build();
          Searcher b = Searcher.builder().root(root).snapshot(second.get()).options(SearchOptions.defaults()).build()) {
        byId.put(first, a);
        byId.put(second.get(), b);
        int onNew = 0;
        for (JsonNode answer : answers) {
          String id = answer.path("snapshot").asText();
          Searcher s = byId.get(id);
          assertTrue(s != null, "answer names a snapshot that was published: " + id);
          onNew += id.equals(second.get()) ? 1 : 0;
          SearchMode mode = SearchMode.valueOf(answer.path("mode").asText().toUpperCase(Locale.ROOT));
          JsonNode expected = JSON.valueToTree(s.search(new SearchRequest(answer.path("_query").asText(), mode, 8,
              MetadataFilter.none())));
          ((ObjectNode) answer).remove("_query");
          Cluster.assertSameAnswer(expected, answer, 1e-5);
        }
        System.out.printf("RouterRolloutITCase: %d answers, %d from the new snapshot%n", answers.size(), onNew);
        assertTrue(onNew > 0, "the router moved to the new snapshot (" + answers.size() + " answers, none from it)");
        assertTrue(answers.size() > onNew, "answers on the old snapshot were compared too");
      }
    }
  }
}
