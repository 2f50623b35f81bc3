package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.search.ShardedCorpus;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partial failure: a stopped replica costs no request while another replica of its group is up; a
 * group with no replica left is 503 with {@code Retry-After}, or, with partial answers allowed, a
 * 200 that says {@code "partial": true} and names the missing shards; {@code /health} shows it.
 */
class RouterFailureITCase {
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir
  Path root;

  @Test
  void aStoppedReplicaCostsNoRequestAndALostGroupIs503OrPartial() throws Exception {
    ShardedCorpus.write(root, 400, 4, 5);
    try (Cluster cluster = new Cluster()) {
      Cluster.Server whole = cluster.serve(root, null, 0);
      Cluster.Server g0a = cluster.serve(root, "0-1", 0);
      Cluster.Server g0b = cluster.serve(root, "0-1", 0);
      Cluster.Server g1 = cluster.serve(root, "2-3", 0);
      List<List<URI>> groups = List.of(List.of(g0a.uri(), g0b.uri()), List.of(g1.uri()));
      RouterServer strict = cluster.route(RouterConfig.of(groups).withDeadlineMs(5000).withPollMs(100));
      RouterServer partial = cluster.route(RouterConfig.of(groups).withDeadlineMs(5000).withPollMs(100)
          .withAllowPartial(true));
      String path = "/search?q=lava+magma&mode=bm25&k=10";
      JsonNode expected = JSON.readTree(Cluster.get(whole.port(), path).body());

      g0a.close();
      for (int i = 0; i < 20; i++) {
        HttpResponse<String> r = Cluster.get(strict.port(), path);
        assertEquals(200, r.statusCode(), "request " + i + " after one replica stopped: " + r.body());
        assertEquals(expected, JSON.readTree(r.body()));
      }

      g0b.close();
      HttpResponse<String> lost = Cluster.get(strict.port(), path);
      assertEquals(503, lost.statusCode(), lost.body());
      assertEquals("1", lost.headers().firstValue("Retry-After").orElse(null));

      waitUntilDown(partial, 0);
      HttpResponse<String> half = Cluster.get(partial.port(), path);
      assertEquals(200, half.statusCode(), half.body());
      JsonNode answer = JSON.readTree(half.body());
      assertTrue(answer.path("partial").asBoolean(), half.body());
      assertEquals("0-1", answer.path("missing_shards").get(0).asText());
      assertTrue(answer.path("results").size() > 0, "the live group's hits are answered: " + half.body());

      // Each router learns that a replica is down from its own poller: waiting for the partial one above
      // says nothing about when the strict one's poll saw both replicas go.
      waitUntilDown(strict, 0);
      HttpResponse<String> health = Cluster.get(strict.port(), "/health");
      assertEquals(503, health.statusCode(), health.body());
      JsonNode replicas = JSON.readTree(health.body()).path("groups").get(0).path("replicas");
      assertEquals(2, replicas.size());
      assertTrue(!replicas.get(0).path("alive").asBoolean() && !replicas.get(1).path("alive").asBoolean(),
          health.body());
    }
  }

  /**
   * Polls the router's health until no replica of {@code group} is alive: a replica is marked down only by
   * a failed poll of the router's own (every 100 ms here), bounded by 10 s for a loaded machine.
   */
  private static void waitUntilDown(RouterServer router, int group) throws Exception {
    long end = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < end) {
      JsonNode replicas = JSON.readTree(Cluster.get(router.port(), "/health").body()).path("groups").get(group)
          .path("replicas");
      boolean anyAlive = false;
      for (JsonNode r : replicas) {
        anyAlive |= r.path("alive").asBoolean();
      }
      if (!anyAlive) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("group " + group + " still shows a live replica after 10 s: "
        + Cluster.get(router.port(), "/health").body());
  }
}
