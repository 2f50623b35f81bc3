package dev.kiln.search.http;

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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.eclipse.jetty.http.HttpStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API speaks strict JSON: bodies with trailing content or unknown fields are refused, unsupported
 * methods are 405 with {@code Allow}, and every error body, Jetty's own included, is JSON.
 */
class SearchServerProtocolTest {
  @TempDir static Path root;
  private static TextEmbedder embedder;
  private static ReloadingSearcher searchers;
  private static SearchServer server;
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(30)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    embedder = SnapshotFixture.openEmbedder();
    new SnapshotFixture(embedder).write(root);
    searchers = new ReloadingSearcher(root, SearchOptions.defaults(), 0);
    server = SearchServer.start(searchers, ServerConfig.of("127.0.0.1", 0, 2));
  }

  @AfterAll
  static void stop() {
    server.close();
    searchers.close();
    embedder.close();
  }

  private static HttpResponse<String> send(String method, String path, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(60))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String error(HttpResponse<String> r) throws Exception {
    assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"), r.headers().map()
        .toString());
    return JSON.readTree(r.body()).get("error").asText();
  }

  @Test
  void aBodyWithTrailingContentUnknownOrRepeatedFieldsIsA400NamingIt() throws Exception {
    Map<String, String> cases = Map.of(
        "{\"q\": \"lava\", \"mode\": \"bm25\"} {\"q\": \"ash\"}", "trailing content after the JSON object",
        "{\"q\": \"lava\", \"mode\": \"bm25\"}]", "trailing content after the JSON object",
        "{\"q\": \"lava\", \"mode\": \"bm25\"} x", "trailing content after the JSON object",
        "{\"q\": \"lava\", \"kk\": 3}", "unknown field 'kk'",
        "{\"q\": \"lava\", \"Mode\": \"bm25\"}", "unknown field 'Mode'",
        "{\"q\": \"lava\", \"budget\": 100}", "unknown field 'budget'",
        "{\"q\": \"lava\", \"k\": 3, \"k\": 900}", "field 'k' appears twice");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      HttpResponse<String> r = send("POST", "/search", c.getKey());
      assertEquals(400, r.statusCode(), c.getKey() + " → " + r.body());
      assertTrue(error(r).contains(c.getValue()), c.getKey() + " → " + r.body());
    }
    HttpResponse<String> context = send("POST", "/context", "{\"q\": \"lava\", \"budget\": 100, \"top_k\": 3}");
    assertEquals(400, context.statusCode(), context.body());
    assertTrue(error(context).contains("unknown field 'top_k'"), context.body());
    // Whitespace after the object is no trailing content, and every known field is still taken.
    assertEquals(200, send("POST", "/search", "{\"query\": \"lava\", \"k\": 2, \"mode\": \"bm25\","
        + " \"filter\": {\"topic\": \"geology\"}}\r\n\n ").statusCode());
    assertEquals(200, send("POST", "/context", "{\"q\": \"lava\", \"k\": 2, \"budget\": 100}").statusCode());
  }

  @Test
  void anUnsupportedMethodIsA405NamingTheAllowedOnes() throws Exception {
    Map<String, String> allowed = Map.of("/health", "GET, HEAD", "/snapshot", "GET, HEAD", "/metrics", "GET, HEAD",
        "/search", "GET, POST", "/context", "GET, POST");
    for (Map.Entry<String, String> e : allowed.entrySet()) {
      List<String> refused = new ArrayList<>(List.of("DELETE", "PUT", "PATCH", "OPTIONS"));
      refused.add(e.getValue().contains("POST") ? "HEAD" : "POST");
      for (String method : refused) {
        HttpResponse<String> r = send(method, e.getKey() + "?q=lava", method.equals("HEAD") ? null : "{}");
        assertEquals(405, r.statusCode(), method + " " + e.getKey());
        assertEquals(e.getValue(), r.headers().firstValue("Allow").orElse(null), method + " " + e.getKey());
        if (!method.equals("HEAD")) {
          assertTrue(error(r).contains(e.getValue()), r.body());
        }
      }
    }
    HttpResponse<String> head = send("HEAD", "/health", null);
    assertEquals(200, head.statusCode());
    assertEquals("", head.body());
    assertEquals(404, send("DELETE", "/nowhere", null).statusCode(), "no such endpoint, whatever the method");
  }

  /** Jetty answers these before any handler runs: its error handler must speak JSON too. */
  @Test
  void jettysOwnErrorsForABadRequestLineALongUriAndBigHeadersAreJson() throws Exception {
    Map<String, Integer> requests = Map.of(
        "GET /health HTTP/1.1 trailing\r\nHost: 127.0.0.1\r\n\r\n", 400,
        "GET /he alth HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400,
        "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n", 400,
        "GET /search?q=" + "a".repeat(40 * 1024) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414,
        "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + "b".repeat(40 * 1024) + "\r\n\r\n", 431);
    for (Map.Entry<String, Integer> c : requests.entrySet()) {
      String what = c.getKey().substring(0, Math.min(40, c.getKey().length()));
      try (Socket s = RawHttp.open(server.port())) {
        RawHttp.send(s, c.getKey());
        String answer = RawHttp.readAll(s, Duration.ofSeconds(30));
        assertEquals((int) c.getValue(), RawHttp.status(answer), what + " → " + answer);
        int end = answer.indexOf("\r\n\r\n");
        String head = answer.substring(0, end).toLowerCase(Locale.ROOT);
        assertTrue(head.contains("\r\ncontent-type: application/json"), what + " → " + answer);
        JsonNode body = JSON.readTree(answer.substring(end + 4));
        // "Bad Request: Illegal character SPACE=' '", "URI Too Long", "Request Header Fields Too Large"
        assertTrue(body.get("error").asText().startsWith(HttpStatus.getMessage(c.getValue())), what + " → " + answer);
        assertFalse(answer.toLowerCase(Locale.ROOT).contains("<html"), answer);
      }
    }
    assertEquals(200, send("GET", "/health", null).statusCode(), "the server still answers");
  }

  /** Jetty's {@code internal} packages may change in any release: the service must not use them. */
  @Test
  void theServerUsesOnlyJettysPublicApi() throws Exception {
    Path classes = Path.of(SearchServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> offenders = new ArrayList<>();
    int checked = 0;
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
        checked++;
        // Class names referenced from a class file are in its constant pool as UTF-8 text.
        String pool = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
        if (pool.matches("(?s).*org/eclipse/jetty/[a-z/]*internal/.*")) {
          offenders.add(classes.relativize(f).toString());
        }
      }
    }
    assertTrue(checked > 10, "no classes found under " + classes);
    assertEquals(List.of(), offenders);
  }
}
