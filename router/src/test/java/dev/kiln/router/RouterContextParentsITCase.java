package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.ShardedCorpus;
import dev.kiln.search.http.ApiKeys;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
 * {@code /context} through a router on a parent-child snapshot over two keyed shard groups (shards
 * 0-1 and 2-3; issue 46): every hit is expanded to its parent, whichever group holds it, exactly as one
 * server over all four shards expands it — for several queries, modes and budgets, for an unbound key
 * and a tenant's — and the answers hold parents of both groups' shards (a group alone finds only its
 * own shards' parents). The {@code parents} phase is bound by the same rules as the others: a tenant's
 * key may not call it, and it resolves no parent of a chunk the client's key may not read or that
 * another group holds.
 */
class RouterContextParentsITCase {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String FULL_KEY = "router-full-key-0123456789";
  static final String TENANT_KEY = "tenant-geology-key-0123456789";
  static final int SHARDS = 4;
  @TempDir
  static Path root;
  @TempDir
  static Path etc;
  static Cluster cluster = new Cluster();
  static Cluster.Server whole;
  static Cluster.Server g0;
  static RouterServer router;
  static String snapshot;

  @BeforeAll
  static void start() throws Exception {
    snapshot = ShardedCorpus.writeWithParents(root, 600, SHARDS, 13);
    Path file = etc.resolve("api-keys");
    Files.writeString(file, FULL_KEY + "\n" + TENANT_KEY + "  topic=geology\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    ApiKeys keys = ApiKeys.load(file);
    whole = cluster.serve(root, null, 0, Cluster.DEFAULTS, keys);
    g0 = cluster.serve(root, "0-1", 0, Cluster.DEFAULTS, keys);
    Cluster.Server g1 = cluster.serve(root, "2-3", 0, Cluster.DEFAULTS, keys);
    router = cluster.route(RouterConfig.of(List.of(List.of(g0.uri()), List.of(g1.uri()))).withDeadlineMs(10_000)
        .withGroupKey(FULL_KEY));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void everyGroupsHitsGetTheirParentsAsOneServerGivesThem() throws Exception {
    int[] parentsPerGroup = new int[2];
    int blocks = 0;
    for (String key : List.of(FULL_KEY, TENANT_KEY)) {
      for (String q : List.of("lava magma", "whale krill ocean", "oven storm", "commit branch river")) {
        for (String mode : List.of("bm25", "dense", "hybrid")) {
          for (int budget : new int[] {60, 2000}) {
            String path = "/context?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + "&mode=" + mode
                + "&k=12&budget=" + budget;
            JsonNode expected = RouterEqualityITCase.ok(Cluster.get(whole.port(), path, key));
            JsonNode routed = RouterEqualityITCase.ok(Cluster.get(router.port(), path, key));
            RouterEqualityITCase.assertSameContext(expected, routed);
            for (JsonNode b : routed.path("blocks")) {
              blocks++;
              if (b.path("text").asText().startsWith("Parent of " + b.path("doc_id").asText() + ":")) {
                parentsPerGroup[shardOf(b.path("doc_id").asText()) < 2 ? 0 : 1]++;
              }
            }
          }
        }
      }
    }
    assertTrue(blocks > 100, "the contexts held blocks to compare: " + blocks);
    // Whichever group packs, the other group's hits were expanded too: parents from both.
    assertTrue(parentsPerGroup[0] > 10 && parentsPerGroup[1] > 10,
        "parents of shards 0-1: " + parentsPerGroup[0] + ", of shards 2-3: " + parentsPerGroup[1]);
  }

  @Test
  void theParentsPhaseIsForRoutersOnly() throws Exception {
    HttpResponse<String> r = group(parents(List.of("doc0#0")), TENANT_KEY, TENANT_KEY);
    assertEquals(403, r.statusCode(), r.body());
    assertTrue(r.body().contains("/internal/group is for routers"), r.body());
  }

  @Test
  void theParentsPhaseResolvesOnlyChunksOfItsShardsTheClientMayRead() throws Exception {
    // Chunks of documents with parents (three of four), sorted by where they live and their topic.
    JsonNode all = RouterEqualityITCase.ok(Cluster.get(whole.port(),
        "/search?q=lava+oven+ocean+commit+storm&mode=bm25&k=200", FULL_KEY));
    List<String> geologyHere = new ArrayList<>();
    List<String> otherTopicHere = new ArrayList<>();
    List<String> otherGroup = new ArrayList<>();
    for (JsonNode h : all.path("results")) {
      if (!h.path("metadata").has("parent_id")) {
        continue;
      }
      String chunk = h.path("chunk_id").asText();
      if (shardOf(h.path("doc_id").asText()) >= 2) {
        otherGroup.add(chunk);
      } else if (h.path("metadata").path("topic").asText().equals("geology")) {
        geologyHere.add(chunk);
      } else {
        otherTopicHere.add(chunk);
      }
    }
    assertTrue(geologyHere.size() >= 2 && otherTopicHere.size() >= 2 && otherGroup.size() >= 2,
        geologyHere + " " + otherTopicHere + " " + otherGroup);
    List<String> mixed = new ArrayList<>(geologyHere);
    mixed.addAll(otherTopicHere);
    mixed.addAll(otherGroup);
    mixed.add("no-such-doc#0");

    // The unbound client: every chunk of group 0's shards, none of the other group's or unknown.
    JsonNode full = RouterEqualityITCase.ok(group(parents(mixed), FULL_KEY, FULL_KEY)).path("parents");
    List<String> expected = new ArrayList<>(geologyHere);
    expected.addAll(otherTopicHere);
    assertEquals(expected, full.findValuesAsText("chunk_id"));
    for (JsonNode p : full) {
      String doc = p.path("chunk_id").asText().split("#")[0];
      assertEquals(doc + "#p0", p.path("parent_id").asText());
      assertTrue(p.path("text").asText().startsWith("Parent of " + doc + ":"), p.toString());
    }
    // The geology tenant: only its topic's parents; the others' texts never appear.
    HttpResponse<String> tenant = group(parents(mixed), FULL_KEY, TENANT_KEY);
    JsonNode tenantParents = RouterEqualityITCase.ok(tenant).path("parents");
    assertEquals(geologyHere, tenantParents.findValuesAsText("chunk_id"));
    // (A document's chunks may differ in topic here, and share the parent: compare by parent.)
    List<String> readable = tenantParents.findValuesAsText("parent_id");
    for (JsonNode p : full) {
      if (!readable.contains(p.path("parent_id").asText())) {
        assertFalse(tenant.body().contains(p.path("text").asText()), tenant.body());
      }
    }
    // A key excluding the client's filter entirely resolves nothing.
    ObjectNode games = parents(mixed).put("query_string", "q=lava&filter=topic%3Dgames");
    assertEquals(0, RouterEqualityITCase.ok(group(games, FULL_KEY, TENANT_KEY)).path("parents").size());
    // A malformed request is a 400 naming the field.
    HttpResponse<String> bad = group(parents(List.of()).put("chunk_ids", "doc0#0"), FULL_KEY, FULL_KEY);
    assertEquals(400, bad.statusCode(), bad.body());
    assertTrue(bad.body().contains("chunk_ids"), bad.body());
  }

  /** The shard a document's chunks live in, as ShardedCorpus routes them. */
  static int shardOf(String docId) {
    return Math.floorMod(docId.hashCode(), SHARDS);
  }

  /** A {@code parents} phase for {@code chunkIds}, for the client's unfiltered search. */
  private static ObjectNode parents(List<String> chunkIds) {
    ObjectNode body = JSON.createObjectNode().put("phase", "parents").put("snapshot", snapshot).put("method", "GET")
        .put("query_string", "q=lava").put("endpoint", "context");
    chunkIds.forEach(body.putArray("chunk_ids")::add);
    return body;
  }

  /** {@code body} posted to group 0 (shards 0-1) with {@code X-Api-Key: key}, {@code X-Kiln-Client-Key: client}. */
  private static HttpResponse<String> group(ObjectNode body, String key, String client) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + g0.port() + "/internal/group"))
        .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json").header("X-Api-Key", key)
        .header(RouterServer.CLIENT_KEY, client)
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
    return Cluster.HTTP.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
