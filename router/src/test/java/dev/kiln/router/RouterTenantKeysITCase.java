package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.search.ShardedCorpus;
import dev.kiln.search.http.ApiKeys;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * API keys through the router: shard groups and one whole server share a keys file with a full key and
 * a tenant's key bound to {@code topic=geology}. The router passes each client's key on, so a tenant's
 * search through it is the single server's for that key (only its tenant's chunks, in every mode); a
 * filter outside the binding finds nothing, a missing or unknown key is the same 401; and the router's
 * own describes carry its group key, without which it refuses keyed groups at start-up.
 */
class RouterTenantKeysITCase {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String FULL_KEY = "router-full-key-0123456789";
  static final String TENANT_KEY = "tenant-geology-key-0123456789";
  @TempDir
  static Path root;
  @TempDir
  static Path etc;
  static Cluster cluster = new Cluster();
  static Cluster.Server whole;
  static Cluster.Server g0;
  static Cluster.Server g1;
  static RouterServer router;

  @BeforeAll
  static void start() throws Exception {
    ShardedCorpus.write(root, 900, 4, 5);
    Path file = etc.resolve("api-keys");
    Files.writeString(file, "sha256:" + ApiKeys.sha256(FULL_KEY) + "\n" + TENANT_KEY + "  topic=geology\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    ApiKeys keys = ApiKeys.load(file);
    whole = cluster.serve(root, null, 0, Cluster.DEFAULTS, keys);
    g0 = cluster.serve(root, "0-1", 0, Cluster.DEFAULTS, keys);
    g1 = cluster.serve(root, "2-3", 0, Cluster.DEFAULTS, keys);
    router = cluster.route(RouterConfig.of(List.of(List.of(g0.uri()), List.of(g1.uri()))).withDeadlineMs(10_000)
        .withGroupKey(FULL_KEY));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void aTenantsKeyFindsOnlyItsTenantsChunksAsOneServerDoes() throws Exception {
    int hits = 0;
    for (String q : List.of("lava magma crust", "ocean whale", "storm glacier desert")) {
      for (String mode : List.of("bm25", "dense", "hybrid")) {
        for (String filter : List.of("", "&filter=lang%3Den")) {
          String path = "/search?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + "&mode=" + mode + "&k=15"
              + filter;
          JsonNode expected = ok(Cluster.get(whole.port(), path, TENANT_KEY));
          JsonNode routed = ok(Cluster.get(router.port(), path, TENANT_KEY));
          Cluster.assertSameAnswer(expected, routed, 1e-5);
          for (JsonNode hit : routed.path("results")) {
            assertEquals("geology", hit.path("metadata").path("topic").asText(), hit.toString());
          }
          hits += routed.path("results").size();
          // The full key reads every topic: the binding, not the corpus, kept the others out.
          JsonNode full = ok(Cluster.get(router.port(), path, FULL_KEY));
          Cluster.assertSameAnswer(ok(Cluster.get(whole.port(), path, FULL_KEY)), full, 1e-5);
        }
      }
    }
    assertTrue(hits > 60, "the tenant's searches found hits: " + hits);
    JsonNode all = ok(Cluster.get(router.port(), "/search?q=lava+oven+ocean+commit&mode=bm25&k=50", FULL_KEY));
    assertTrue(all.path("results").findValuesAsText("topic").stream().anyMatch(t -> !t.equals("geology")),
        "the full key's answer holds other topics");
  }

  @Test
  void aFilterOutsideTheBindingFindsNothingAsOneServerDoes() throws Exception {
    String path = "/search?q=lava&mode=hybrid&k=10&filter=topic%3Dgames";
    JsonNode expected = ok(Cluster.get(whole.port(), path, TENANT_KEY));
    JsonNode routed = ok(Cluster.get(router.port(), path, TENANT_KEY));
    assertEquals(0, expected.path("results").size());
    Cluster.assertSameAnswer(expected, routed, 0);
  }

  @Test
  void aMissingOrUnknownKeyIsTheSame401() throws Exception {
    sameRefusal(Cluster.get(whole.port(), "/search?q=lava"), Cluster.get(router.port(), "/search?q=lava"));
    String unknown = "no-such-key-0123456789";
    sameRefusal(Cluster.get(whole.port(), "/search?q=lava", unknown),
        Cluster.get(router.port(), "/search?q=lava", unknown));
  }

  private static void sameRefusal(HttpResponse<String> single, HttpResponse<String> routed) throws Exception {
    assertEquals(401, single.statusCode(), single.body());
    assertEquals(401, routed.statusCode(), routed.body());
    assertEquals(JSON.readTree(single.body()), JSON.readTree(routed.body()));
  }

  @Test
  void keyedGroupsAreRefusedToARouterWithoutAGroupKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RouterServer.start(
        RouterConfig.of(List.of(List.of(g0.uri()), List.of(g1.uri()))).withDeadlineMs(2000)).close());
    assertTrue(e.getMessage().contains("--group-key-file") && e.getMessage().contains("401"), e.getMessage());
  }

  static JsonNode ok(HttpResponse<String> response) throws Exception {
    assertEquals(200, response.statusCode(), response.body());
    return JSON.readTree(response.body());
  }
}
