package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.search.ShardedCorpus;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the router reaches its groups: over kept-alive connections (a search opens none once the
 * router is warm, so no connect or slow start per phase), and every routed answer says where its
 * time went ({@code Server-Timing}: each phase, and each group call's round trip beside the group's
 * own handling of it).
 */
class RouterTransportITCase {
  @TempDir
  static Path root;
  static Cluster cluster = new Cluster();
  static Cluster.Server g0;
  static Cluster.Server g1;
  static RouterServer router;

  @BeforeAll
  static void start() throws Exception {
    ShardedCorpus.write(root, 600, 4, 5);
    g0 = cluster.serve(root, "0-1", 0);
    g1 = cluster.serve(root, "2-3", 0);
    router = cluster.route(RouterConfig.of(List.of(List.of(g0.uri()), List.of(g1.uri()))).withDeadlineMs(10_000));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void searchesReuseTheRoutersConnectionsToTheGroups() throws Exception {
    String[] queries = {"lava magma", "whale krill", "commit branch", "storm thunder", "planet orbit"};
    concurrently(4, 8, queries); // warm
    long opened0 = g0.server().metrics().connectionsOpenedCount();
    long opened1 = g1.server().metrics().connectionsOpenedCount();
    for (int i = 0; i < 40; i++) {
      assertEquals(200, Cluster.get(router.port(), "/search?mode=hybrid&q=" + queries[i % queries.length]
          .replace(' ', '+')).statusCode());
    }
    concurrently(4, 40, queries);
    // 3 phases × 80 searches = 240 calls to each group. A connection per call would open 240; kept
    // alive, at most one per concurrent client and one for the poller's describes (a pool may drop an
    // idle one and open it again later, hence the bound rather than none).
    long more0 = g0.server().metrics().connectionsOpenedCount() - opened0;
    long more1 = g1.server().metrics().connectionsOpenedCount() - opened1;
    assertTrue(more0 <= 5, "connections opened by group 0 over 240 calls: " + more0);
    assertTrue(more1 <= 5, "connections opened by group 1 over 240 calls: " + more1);
  }

  /** {@code clients} clients sending {@code total} searches between them; every answer is a 200. */
  private static void concurrently(int clients, int total, String[] queries) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<Integer>> calls = new ArrayList<>();
      for (int i = 0; i < total; i++) {
        String q = queries[i % queries.length].replace(' ', '+');
        calls.add(pool.submit(() -> Cluster.get(router.port(), "/search?mode=hybrid&q=" + q).statusCode()));
      }
      for (Future<Integer> c : calls) {
        assertEquals(200, c.get());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theQueryIsEmbeddedByTheFirstGroupOnly() throws Exception {
    for (String q : new String[] {"lava+magma", "whale+krill", "oven"}) {
      assertEquals(200, Cluster.get(router.port(), "/search?mode=dense&q=" + q).statusCode());
    }
    try (var lease0 = g0.searchers().acquire(); var lease1 = g1.searchers().acquire()) {
      // Counted queries, not loaded models: a group preloads its query model at open either way.
      assertTrue(lease0.searcher().queriesEmbedded() >= 3, "group 0 embeds the query");
      assertEquals(0, lease1.searcher().queriesEmbedded(), "group 1 searches with group 0's vector");
    }
  }

  @Test
  void aRoutedAnswerSaysWhereItsTimeWent() throws Exception {
    HttpResponse<String> r = Cluster.get(router.port(), "/search?q=lava+magma&mode=hybrid&k=5");
    assertEquals(200, r.statusCode(), r.body());
    String header = r.headers().firstValue("Server-Timing").orElseThrow();
    Map<String, Double> t = parse(header);
    for (String name : List.of("stats", "legs", "fetch", "merge", "total", "g0-stats", "g1-stats", "g0-stats-group",
        "g1-stats-group", "g0-legs", "g1-legs", "g0-legs-group", "g1-legs-group")) {
      assertTrue(t.containsKey(name), name + " in " + header);
    }
    for (String call : List.of("g0-stats", "g1-stats", "g0-legs", "g1-legs")) {
      // The group's handling is inside the router's round trip to it, which is inside the phase.
      assertTrue(t.get(call + "-group") <= t.get(call), header);
      String phase = call.substring(3);
      assertTrue(t.get(call) <= t.get(phase), header);
    }
    assertTrue(t.get("stats") + t.get("legs") + t.get("fetch") <= t.get("total"), header);
  }

  @Test
  void aGroupPhaseSaysHowLongItQueuedAndRan() throws Exception {
    HttpResponse<String> r = Cluster.post(g0.port(), "/internal/group", "{\"phase\":\"stats\",\"snapshot\":\""
        + g0.searchers().currentId() + "\",\"method\":\"GET\",\"query_string\":\"q=lava\"}");
    assertEquals(200, r.statusCode(), r.body());
    Map<String, Double> t = parse(r.headers().firstValue("Server-Timing").orElseThrow());
    assertTrue(t.get("queue") >= 0 && t.get("group") > 0, t.toString());
  }

  private static Map<String, Double> parse(String header) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String metric : header.split(",")) {
      String[] parts = metric.strip().split(";dur=");
      out.put(parts[0], Double.parseDouble(parts[1]));
    }
    return out;
  }
}
