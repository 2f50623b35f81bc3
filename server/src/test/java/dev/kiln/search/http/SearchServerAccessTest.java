package dev.kiln.search.http;

import static dev.kiln.search.SnapshotFixture.chunk;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SnapshotFixture;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may call the server: Host and Origin checks against DNS rebinding, API keys, and keys bound
 * to a tenant, over a real snapshot holding two tenants' chunks.
 */
class SearchServerAccessTest {
  private static final String FULL_KEY = "full-access-key-0123456789";
  private static final String ACME_KEY = "acme-tenant-key-0123456789";

  @TempDir static Path root;
  @TempDir static Path etc;
  private static TextEmbedder embedder;
  private static ReloadingSearcher searchers;
  private static SearchServer open;
  private static SearchServer keyed;
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(30)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    embedder = SnapshotFixture.openEmbedder();
    Map<String, String> acme = Map.of("tenant", "acme", "topic", "policy");
    Map<String, String> globex = Map.of("tenant", "globex", "topic", "policy");
    new SnapshotFixture(embedder).shards(List.of(
        List.of(
            chunk("acme-refunds", 0, "Refunds", "Refunds are paid within 30 days of a return.", acme),
            chunk("globex-refunds", 0, "Refunds", "Refunds are paid within 90 days of a return.", globex)),
        List.of(
            chunk("acme-shipping", 0, "Shipping", "Refunds for lost parcels follow the shipping policy.", acme),
            chunk("globex-shipping", 0, "Shipping", "Refunds for damaged parcels need a photo.", globex))))
        .write(root);
    searchers = new ReloadingSearcher(root, SearchOptions.defaults(), 0);
    open = SearchServer.start(searchers, ServerConfig.of("127.0.0.1", 0, 2)
        .withAllowedHosts(List.of("kiln.internal")));
    Path keys = etc.resolve("api-keys");
    Files.writeString(keys, "# full access, stored as its digest\n"
        + "sha256:" + ApiKeys.sha256(FULL_KEY) + "\n"
        + ACME_KEY + "  tenant=acme\n");
    Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-------"));
    keyed = SearchServer.start(searchers, ServerConfig.of("127.0.0.1", 0, 2).withApiKeys(ApiKeys.load(keys)));
  }

  @AfterAll
  static void stop() {
    open.close();
    keyed.close();
    searchers.close();
    embedder.close();
  }

  private static int rawStatus(SearchServer server, String host) throws Exception {
    try (Socket s = RawHttp.open(server.port())) {
      RawHttp.send(s, "GET /health HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
      return RawHttp.status(RawHttp.readAll(s, Duration.ofSeconds(30)));
    }
  }

  private static HttpResponse<String> get(SearchServer server, String pathAndQuery, String... headers)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
        .timeout(Duration.ofSeconds(60));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(SearchServer server, String path, String body, String... headers)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static Set<String> tenants(HttpResponse<String> r) throws Exception {
    assertEquals(200, r.statusCode(), r.body());
    Set<String> out = new HashSet<>();
    JSON.readTree(r.body()).get("results").forEach(h -> out.add(h.get("metadata").get("tenant").asText()));
    return out;
  }

  @Test
  void aForeignHostIsRefusedAndLocalNamesAreServed() throws Exception {
    int port = open.port();
    assertEquals(403, rawStatus(open, "evil.example"));
    assertEquals(403, rawStatus(open, "evil.example:" + port));
    assertEquals(403, rawStatus(open, "127.0.0.1.evil.example"));
    assertEquals(403, rawStatus(open, "localhost.evil.example:" + port));
    for (String local : List.of("127.0.0.1:" + port, "localhost:" + port, "LOCALHOST", "[::1]:" + port,
        "kiln.internal", "kiln.internal:" + port)) {
      assertEquals(200, rawStatus(open, local), local);
    }
    try (Socket s = RawHttp.open(port)) {
      RawHttp.send(s, "GET /search?q=refunds&mode=bm25 HTTP/1.1\r\nHost: rebound.example\r\n\r\n");
      String answer = RawHttp.readAll(s, Duration.ofSeconds(30));
      assertEquals(403, RawHttp.status(answer));
      assertTrue(answer.contains("\"error\":\"host 'rebound.example' is not served here"), answer);
      assertFalse(answer.contains("Refunds are paid"), "no search result may leak to a foreign host");
    }
  }

  @Test
  void aForeignOriginIsRefused() throws Exception {
    assertEquals(403, get(open, "/search?q=refunds&mode=bm25", "Origin", "http://evil.example").statusCode());
    assertEquals(403, get(open, "/search?q=refunds&mode=bm25", "Origin", "null").statusCode());
    assertEquals(403, get(open, "/health", "Origin", "file://localhost").statusCode());
    assertEquals(403, post(open, "/search", "{\"q\": \"refunds\"}", "Origin", "https://evil.example:8080")
        .statusCode());
    assertEquals(200, get(open, "/search?q=refunds&mode=bm25", "Origin", "http://localhost:3000").statusCode());
    assertEquals(200, get(open, "/search?q=refunds&mode=bm25", "Origin", "https://kiln.internal").statusCode());
    assertTrue(open.metrics().requests("search", 403) >= 3);
  }

  @Test
  void withApiKeysEveryEndpointButHealthNeedsAValidKey() throws Exception {
    HttpResponse<String> none = get(keyed, "/search?q=refunds&mode=bm25");
    assertEquals(401, none.statusCode());
    assertEquals("Bearer realm=\"kiln\"", none.headers().firstValue("WWW-Authenticate").orElse(null));
    assertTrue(JSON.readTree(none.body()).get("error").asText().contains("API key"));
    assertEquals(401, get(keyed, "/search?q=refunds", "Authorization", "Bearer not-a-key-0123456789").statusCode());
    assertEquals(401, get(keyed, "/search?q=refunds", "X-Api-Key", ApiKeys.sha256(FULL_KEY)).statusCode(),
        "the digest is not the key");
    assertEquals(401, get(keyed, "/snapshot").statusCode());
    assertEquals(401, get(keyed, "/metrics").statusCode());
    assertEquals(401, post(keyed, "/context", "{\"q\": \"refunds\"}").statusCode());
    assertEquals(200, get(keyed, "/health").statusCode());
    assertEquals(200, get(keyed, "/snapshot", "Authorization", "Bearer " + FULL_KEY).statusCode());
    assertEquals(200, get(keyed, "/metrics", "X-Api-Key", FULL_KEY).statusCode());
    assertEquals(403, get(keyed, "/metrics", "X-Api-Key", ACME_KEY).statusCode(), "a tenant's key: whole-service data");
    // The unbound key sees both tenants: the data has both, so the binding below is what restricts.
    assertEquals(Set.of("acme", "globex"),
        tenants(get(keyed, "/search?q=refunds&mode=bm25&k=10", "Authorization", "Bearer " + FULL_KEY)));
  }

  @Test
  void aKeyBoundToATenantCannotWidenItsFilter() throws Exception {
    String[] acme = {"X-Api-Key", ACME_KEY};
    assertEquals(Set.of("acme"), tenants(get(keyed, "/search?q=refunds&mode=bm25&k=10", acme)));
    assertEquals(Set.of("acme"), tenants(get(keyed, "/search?q=refunds&mode=hybrid&k=10", acme)));
    // Asking for the other tenant ANDs with the binding: nothing, rather than the other's chunks.
    HttpResponse<String> other = get(keyed, "/search?q=refunds&mode=bm25&k=10&filter=tenant:globex", acme);
    assertEquals(Set.of(), tenants(other));
    assertEquals("no relevant context", JSON.readTree(other.body()).get("reason").asText());
    assertEquals(Set.of("acme"),
        tenants(get(keyed, "/search?q=refunds&mode=bm25&k=10&filter=tenant:globex&filter=tenant:acme", acme)));
    assertEquals(Set.of(), tenants(post(keyed, "/search",
        "{\"q\": \"refunds\", \"mode\": \"dense\", \"k\": 10, \"filter\": {\"tenant\": [\"globex\"]}}", acme)));
    assertEquals(Set.of("acme"), tenants(post(keyed, "/search",
        "{\"q\": \"refunds\", \"mode\": \"bm25\", \"k\": 10, \"filter\": {\"topic\": \"policy\"}}", acme)));

    JsonNode context = JSON.readTree(post(keyed, "/context", "{\"q\": \"refunds\", \"k\": 10, \"budget\": 500}",
        acme).body());
    assertTrue(context.get("blocks").size() > 0, context.toString());
    context.get("blocks").forEach(b -> assertTrue(b.get("doc_id").asText().startsWith("acme-"), b.toString()));
    JsonNode none = JSON.readTree(get(keyed, "/context?q=refunds&filter=tenant:globex", acme).body());
    assertEquals(0, none.get("blocks").size(), none.toString());
    assertFalse(none.toString().contains("globex"), none.toString());
  }
}
