package dev.kiln.search.http;

import static dev.kiln.search.SnapshotFixture.chunk;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.SnapshotFixture;
import dev.kiln.search.filter.MetadataFilter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each caller may see (docs/FORMATS.md, "HTTP responses"): {@code /health} without a key, a
 * tenant-bound key, an unbound key; where hits came from on the build machine; what a 500 tells.
 */
class SearchServerExposureTest {
  private static final String ADMIN_KEY = "admin-unbound-key-0123456789";
  private static final String ACME_KEY = "acme-tenant-key-0123456789";
  /** Where the build machine kept the corpus: it must never reach a client. */
  private static final String BUILD_DIR = "/home/builder/corpora/acme";

  @TempDir static Path root;
  @TempDir static Path etc;
  private static TextEmbedder embedder;
  private static ReloadingSearcher searchers;
  private static SearchServer keyed;
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(30)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    embedder = SnapshotFixture.openEmbedder();
    new SnapshotFixture(embedder).shards(List.of(
        List.of(chunk("guides/install.md", 0, "Installing", "Install the kiln package and start the furnace.",
            Map.of("tenant", "acme", "source_uri", "file:" + BUILD_DIR + "/guides/install.md"))),
        List.of(chunk("faq-7", 0, "Furnace FAQ", "The furnace reaches its firing temperature in an hour.",
            Map.of("tenant", "acme", "source_uri", "file:" + BUILD_DIR + "/faq.jsonl")),
            chunk("remote-1", 0, "Remote furnace", "A remote furnace is started from the console.",
                Map.of("tenant", "acme", "source_uri", "s3://corpora/acme/remote.jsonl")))))
        .write(root);
    searchers = new ReloadingSearcher(root, SearchOptions.defaults(), 0);
    Path keys = etc.resolve("api-keys");
    Files.writeString(keys, ADMIN_KEY + "\n" + ACME_KEY + "  tenant=acme\n");
    Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-------"));
    keyed = SearchServer.start(searchers, ServerConfig.of("127.0.0.1", 0, 2).withApiKeys(ApiKeys.load(keys)));
  }

  @AfterAll
  static void stop() {
    keyed.close();
    searchers.close();
    embedder.close();
  }

  static HttpResponse<String> get(SearchServer server, String pathAndQuery, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
        .timeout(Duration.ofSeconds(60));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String[] bearer(String key) {
    return new String[] {"Authorization", "Bearer " + key};
  }

  @Test
  void aTenantBoundKeySearchesButMayNotReadTheManifestOrTheMetrics() throws Exception {
    assertEquals(200, get(keyed, "/search?q=furnace&mode=bm25", bearer(ACME_KEY)).statusCode());
    assertEquals(200, get(keyed, "/health", bearer(ACME_KEY)).statusCode());
    for (String admin : List.of("/snapshot", "/metrics")) {
      HttpResponse<String> refused = get(keyed, admin, bearer(ACME_KEY));
      assertEquals(403, refused.statusCode(), admin + ": " + refused.body());
      assertTrue(refused.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
      String error = JSON.readTree(refused.body()).get("error").asText();
      assertTrue(error.contains("bound"), error);
      assertFalse(refused.body().contains("manifest") || refused.body().contains("kiln_requests"), refused.body());
      assertEquals(401, get(keyed, admin).statusCode(), admin + " without a key");
      assertEquals(200, get(keyed, admin, bearer(ADMIN_KEY)).statusCode(), admin + " with an unbound key");
    }
  }

  @Test
  void hitsCarryNoBuildMachinePathWhileTheLibraryKeepsTheSourceAsIndexed() throws Exception {
    JsonNode search = JSON.readTree(get(keyed, "/search?q=furnace&mode=bm25&k=10", bearer(ADMIN_KEY)).body());
    Map<String, String> sources = new HashMap<>();
    search.get("results").forEach(h -> sources.put(h.get("doc_id").asText(),
        h.get("metadata").get("source_uri").asText()));
    assertEquals(Map.of("guides/install.md", "install.md", "faq-7", "faq.jsonl",
        "remote-1", "s3://corpora/acme/remote.jsonl"), sources, search.toString());
    assertFalse(search.toString().contains(BUILD_DIR), search.toString());

    JsonNode context = JSON.readTree(get(keyed, "/context?q=furnace&k=10&budget=500", bearer(ACME_KEY)).body());
    assertEquals(3, context.get("blocks").size(), context.toString());
    assertFalse(context.toString().contains(BUILD_DIR), context.toString());
    assertTrue(context.get("text").asText().contains("install.md › Installing"), context.toString());

    // The library, and so `kiln search`, still gives the source exactly as the build indexed it.
    try (ReloadingSearcher.Lease lease = searchers.acquire()) {
      String indexed = lease.searcher().search(new SearchRequest("furnace", SearchMode.BM25, 10, MetadataFilter.none()))
          .results().stream().filter(h -> h.docId().equals("faq-7")).findFirst().orElseThrow()
          .metadata().get("source_uri");
      assertEquals("file:" + BUILD_DIR + "/faq.jsonl", indexed);
    }
  }

  @Test
  void withItsCorpusRootConfiguredASourceIsShownRelativeToItBehindTheRootsLabel() throws Exception {
    try (SearchServer labelled = SearchServer.start(searchers, ServerConfig.of("127.0.0.1", 0, 2)
        .withSources(SourceUris.parse(List.of(BUILD_DIR + "=acme"))))) {
      JsonNode search = JSON.readTree(get(labelled, "/search?q=furnace&mode=bm25&k=10").body());
      Map<String, String> sources = new HashMap<>();
      search.get("results").forEach(h -> sources.put(h.get("doc_id").asText(),
          h.get("metadata").get("source_uri").asText()));
      assertEquals(Map.of("guides/install.md", "acme/guides/install.md", "faq-7", "acme/faq.jsonl",
          "remote-1", "s3://corpora/acme/remote.jsonl"), sources, search.toString());
      JsonNode context = JSON.readTree(get(labelled, "/context?q=install+the+kiln+package&k=1&budget=200").body());
      assertEquals("acme/guides/install.md", context.get("blocks").get(0).get("source").asText(), context.toString());
      assertTrue(context.get("text").asText().startsWith("[1] acme/guides/install.md › Installing"), context.toString());
    }
  }

  @Test
  void healthWithoutAKeyGivesTheStatusAndSnapshotButNoPathOrExceptionText(@TempDir Path other) throws Exception {
    String served = new SnapshotFixture(embedder).write(other);
    try (ReloadingSearcher failing = new ReloadingSearcher(other, SearchOptions.defaults(), 0);
        SearchServer server = SearchServer.start(failing, ServerConfig.of("127.0.0.1", 0, 2)
            .withApiKeys(ApiKeys.load(etc.resolve("api-keys"))))) {
      // CURRENT names a snapshot that is not there: the reload fails with an error naming the path.
      Files.writeString(other.resolve("CURRENT"), "20261201T000000Z-abcdef\n", StandardCharsets.UTF_8);
      assertThrows(RuntimeException.class, failing::checkNow);
      assertTrue(failing.reloadStatus().lastError().contains(other.toString()), failing.reloadStatus().lastError());

      HttpResponse<String> health = get(server, "/health");
      assertEquals(200, health.statusCode());
      JsonNode body = JSON.readTree(health.body());
      assertEquals("degraded", body.get("status").asText(), body.toString());
      assertEquals(served, body.get("snapshot").asText());
      assertEquals("20261201T000000Z-abcdef", body.get("reload").get("failing_snapshot").asText(), body.toString());
      assertFalse(health.body().contains(other.toString()), health.body());
      assertFalse(health.body().contains("Exception") || body.get("reload").has("last_error"), health.body());

      // The operator reads the error where an unbound key is needed.
      JsonNode snapshot = JSON.readTree(get(server, "/snapshot", bearer(ADMIN_KEY)).body());
      assertTrue(snapshot.get("reload").get("last_error").asText().contains(other.toString()), snapshot.toString());
    }
  }

  @Test
  void aFailureIsA500WithARequestIdThatTheLogHoldsWithTheWholeException(@TempDir Path other) throws Exception {
    new SnapshotFixture(embedder).write(other);
    ReloadingSearcher closing = new ReloadingSearcher(other, SearchOptions.defaults(), 0);
    try (SearchServer server = SearchServer.start(closing, ServerConfig.of("127.0.0.1", 0, 2));
        CapturedLog log = new CapturedLog(SearchHandler.class)) {
      closing.close(); // every lease now fails: "the service is shutting down"
      Pattern id = Pattern.compile("[0-9a-f]{16}");
      Set<String> ids = new HashSet<>();
      for (String path : List.of("/search?q=furnace", "/health", "/snapshot")) {
        HttpResponse<String> failed = get(server, path);
        assertEquals(500, failed.statusCode(), path);
        assertTrue(failed.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
        JsonNode body = JSON.readTree(failed.body());
        assertFalse(failed.body().contains("shutting down") || failed.body().contains("IllegalStateException"),
            failed.body());
        String requestId = body.get("request_id").asText();
        assertTrue(id.matcher(requestId).matches(), failed.body());
        assertTrue(ids.add(requestId), "one id per request: " + ids);
        assertEquals("internal error (request id " + requestId + "); the server log has the details",
            body.get("error").asText());
        assertEquals(requestId, failed.headers().firstValue("X-Request-Id").orElse(null));
        String logged = log.events().stream().filter(e -> e.contains(requestId)).findFirst()
            .orElseThrow(() -> new AssertionError("request " + requestId + " not logged: " + log.events()));
        assertTrue(logged.contains("java.lang.IllegalStateException: the service is shutting down"), logged);
        assertTrue(logged.contains("\tat dev.kiln.search.http.ReloadingSearcher.acquire"), logged);
      }
    }
  }
}
