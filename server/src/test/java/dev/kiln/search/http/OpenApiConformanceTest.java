package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SnapshotFixture;
import dev.kiln.snapshot.SnapshotStore;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /openapi.json} against the server that serves it: the document parses without a message under
 * the reference OpenAPI 3 parser (swagger-parser); it declares exactly the retrieval options {@link
 * RequestOption} declares; and live answers of every endpoint and method it lists — successes and
 * refusals — have a documented status, content type and a body its schema accepts. Every documented
 * path and method is called at least once, so a new endpoint cannot go undocumented.
 */
class OpenApiConformanceTest {
  @TempDir static Path root;
  private static TextEmbedder embedder;
  private static ServedRoots searchers;
  private static SearchServer server;
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static JsonNode document;
  private static JsonSchemaCheck schemas;

  @BeforeAll
  static void start() throws IOException {
    embedder = SnapshotFixture.openEmbedder();
    new SnapshotFixture(embedder).write(root);
    searchers = ServedRoots.single(new ReloadingSearcher(root, SearchOptions.defaults(), 0));
    server = SearchServer.start(searchers, ServerConfig.of("127.0.0.1", 0, 2));
    document = JSON.readTree(OpenApiDocument.text());
    schemas = new JsonSchemaCheck(document);
  }

  @AfterAll
  static void stop() {
    server.close();
    searchers.close();
    embedder.close();
  }

  @Test
  void theDocumentParsesCleanlyAndIsTheOneServed() throws Exception {
    ParseOptions options = new ParseOptions();
    options.setResolve(true);
    SwaggerParseResult result = new OpenAPIV3Parser().readContents(OpenApiDocument.text(), null, options);
    assertEquals(List.of(), result.getMessages() == null ? List.of() : result.getMessages());
    OpenAPI api = result.getOpenAPI();
    assertNotNull(api);
    assertTrue(api.getOpenapi().startsWith("3."), api.getOpenapi());
    Set<String> routes = new TreeSet<>();
    for (Route r : Route.values()) {
      if (r != Route.UNKNOWN) {
        routes.add(r.path);
        PathItem item = api.getPaths().get(r.path);
        assertNotNull(item, r.path + " is not documented");
        Set<String> documented = new TreeSet<>();
        item.readOperationsMap().keySet().forEach(m -> documented.add(m.name()));
        assertEquals(new TreeSet<>(r.methods), documented, r.path + ": documented methods");
      }
    }
    assertEquals(routes, new TreeSet<>(api.getPaths().keySet()));
    HttpResponse<String> served = call("GET", "/openapi.json", null);
    assertEquals(200, served.statusCode());
    assertEquals(OpenApiDocument.text(), served.body());
  }

  /** The document's options are {@link RequestOption}'s, by name and type, in the query and in bodies. */
  @Test
  void everyRetrievalOptionIsDocumentedWithItsType() {
    for (String path : List.of("/search", "/context")) {
      Set<String> parameters = new HashSet<>();
      for (JsonNode p : document.at("/paths/" + path.replace("/", "~1") + "/get/parameters")) {
        JsonNode parameter = schemas.resolve(p);
        parameters.add(parameter.get("name").asText());
        RequestOption option = RequestOption.named(parameter.get("name").asText());
        if (option != null) {
          assertTypeFits(option, parameter.get("schema"), path);
        }
      }
      Set<String> expected = new TreeSet<>(RequestOption.names());
      expected.addAll(List.of("q", "k", "mode", "filter"));
      if (path.equals("/context")) {
        expected.add("budget");
      }
      assertEquals(expected, new TreeSet<>(parameters), path + " query parameters");
      String body = path.equals("/search") ? "SearchBody" : "ContextBody";
      JsonNode properties = document.at("/components/schemas/" + body + "/properties");
      Set<String> fields = new TreeSet<>();
      properties.fieldNames().forEachRemaining(fields::add);
      expected.add("query");
      assertEquals(expected, fields, body + " fields");
      for (RequestOption option : RequestOption.values()) {
        assertTypeFits(option, properties.get(option.parameter), body);
      }
    }
  }

  private static void assertTypeFits(RequestOption option, JsonNode schema, String where) {
    String sample = switch (option.type) {
      case INTEGER -> "5";
      case NUMBER -> "0.5";
      case GATE -> "\"off\"";
      case BOOLEAN -> "true";
      case STRING -> "\"keywords\"";
      case FUSION -> "\"rrf\"";
    };
    try {
      List<String> problems = schemas.problems(schema, JSON.readTree(sample));
      assertEquals(List.of(), problems, where + ": " + option.parameter + " takes " + sample);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private record Call(String method, String path, String body, int status) {}

  @Test
  void liveAnswersOfEveryEndpointConform() throws Exception {
    String allOptions = "{\"q\": \"lava\", \"k\": 3, \"mode\": \"hybrid\", \"filter\": {\"topic\": [\"geology\"]},"
        + " \"ef\": 50, \"fusion\": \"rrf\", \"alpha\": 0.4, \"dense-depth\": 30, \"bm25-depth\": 30,"
        + " \"min-score\": \"off\", \"max-drop\": 0.9, \"rerank\": false, \"rerank-depth\": 20,"
        + " \"feedback\": false, \"rewriter\": \"keywords\"}";
    String id = new SnapshotStore(root).current().orElseThrow();
    List<Call> calls = List.of(
        new Call("GET", "/ui", null, 200),
        new Call("HEAD", "/ui", null, 200),
        new Call("GET", "/snapshots", null, 200),
        new Call("HEAD", "/snapshots", null, 200),
        new Call("GET", "/manifest?snapshot=" + id, null, 200),
        new Call("HEAD", "/manifest?snapshot=" + id, null, 200),
        new Call("GET", "/explain?q=lava&k=3&mode=hybrid&snapshot=" + id, null, 200),
        new Call("GET", "/manifest?snapshot=../etc", null, 400),
        new Call("GET", "/manifest?snapshot=20991231T000000Z-000000", null, 404),
        new Call("GET", "/explain?q=lava&ef=3", null, 400),
        new Call("GET", "/explain?q=lava&snapshot=20991231T000000Z-000000", null, 400),
        new Call("POST", "/ui", null, 405),
        new Call("POST", "/snapshots", null, 405),
        new Call("DELETE", "/manifest", null, 405),
        new Call("POST", "/explain", null, 405),
        new Call("POST", "/internal/group", "{\"phase\": \"describe\"}", 200),
        new Call("POST", "/internal/group", "{\"phase\": \"shuffle\"}", 400),
        new Call("GET", "/search?q=lava&k=3", null, 200),
        new Call("GET", "/search?q=lava&mode=dense&min-score=0.999", null, 200),
        new Call("GET", "/search?q=lava&filter=topic:geology&ef=40&rewriter=rm3&feedback=true", null, 200),
        new Call("POST", "/search", allOptions, 200),
        new Call("GET", "/context?q=lava&budget=60", null, 200),
        new Call("POST", "/context", "{\"query\": \"git commits\", \"budget\": 80, \"rerank\": false}", 200),
        new Call("GET", "/health", null, 200),
        new Call("HEAD", "/health", null, 200),
        new Call("GET", "/snapshot", null, 200),
        new Call("HEAD", "/snapshot", null, 200),
        new Call("GET", "/metrics", null, 200),
        new Call("HEAD", "/metrics", null, 200),
        new Call("GET", "/openapi.json", null, 200),
        new Call("HEAD", "/openapi.json", null, 200),
        new Call("GET", "/search?q=x&ef=5000", null, 400),
        new Call("GET", "/search?q=x&rewriter=nope", null, 400),
        new Call("GET", "/search?q=x&colour=red", null, 400),
        new Call("POST", "/search", "{\"q\": 1}", 400),
        new Call("POST", "/search", "{\"q\": \"x\", \"rerank\": true}", 400),
        new Call("GET", "/context?q=x&budget=0", null, 400),
        new Call("DELETE", "/search", null, 405),
        new Call("PUT", "/context", null, 405),
        new Call("POST", "/health", null, 405),
        new Call("POST", "/snapshot", null, 405),
        new Call("DELETE", "/metrics", null, 405),
        new Call("POST", "/openapi.json", null, 405));
    Set<String> exercised = new TreeSet<>();
    List<String> problems = new ArrayList<>();
    for (Call c : calls) {
      HttpResponse<String> r = call(c.method, c.path, c.body);
      assertEquals(c.status, r.statusCode(), c + " → " + r.body());
      String path = c.path.contains("?") ? c.path.substring(0, c.path.indexOf('?')) : c.path;
      String method = c.method.toLowerCase(Locale.ROOT);
      JsonNode operation = document.path("paths").path(path).path(method);
      if (operation.isMissingNode()) {
        // A method the path does not take: its 405 must be documented on the path's GET.
        operation = document.path("paths").path(path).path("get");
        assertTrue(r.statusCode() == 405, c + ": undocumented operation answered " + r.statusCode());
      } else {
        exercised.add(method.toUpperCase(Locale.ROOT) + " " + path);
      }
      if (c.body != null && operation.has("requestBody")) {
        JsonNode bodySchema = operation.at("/requestBody/content/application~1json/schema");
        if (r.statusCode() == 200) {
          problems.addAll(prefixed(c + " request", schemas.problems(bodySchema, JSON.readTree(c.body))));
        }
      }
      JsonNode response = operation.path("responses").path(Integer.toString(r.statusCode()));
      if (response.isMissingNode()) {
        problems.add(c + ": status " + r.statusCode() + " is not documented");
        continue;
      }
      if (c.method.equals("HEAD")) {
        continue; // no body to check
      }
      String type = r.headers().firstValue("Content-Type").orElse("").split(";")[0].strip();
      JsonNode content = response.path("content").path(type);
      if (content.isMissingNode()) {
        problems.add(c + ": content type " + type + " is not documented for " + r.statusCode());
        continue;
      }
      JsonNode body = type.equals("application/json") ? JSON.readTree(r.body()) : JSON.getNodeFactory().textNode(r.body());
      problems.addAll(prefixed(c.toString(), schemas.problems(content.get("schema"), body)));
    }
    assertEquals(List.of(), problems);
    Set<String> documented = new TreeSet<>();
    for (Map.Entry<String, JsonNode> p : document.get("paths").properties()) {
      p.getValue().fieldNames().forEachRemaining(m -> documented.add(m.toUpperCase(Locale.ROOT) + " " + p.getKey()));
    }
    assertEquals(documented, exercised, "every documented operation is called");
    // An unknown path has no operation; its 404 is still the API's error shape.
    HttpResponse<String> missing = call("GET", "/nothing-here", null);
    assertEquals(404, missing.statusCode());
    assertEquals(List.of(), schemas.problems(document.at("/components/schemas/Error"), JSON.readTree(missing.body())));
  }

  /** The refusals only a server with API keys gives: 401 without a key, 403 for a bound key or a foreign Host. */
  @Test
  void keyRefusalsConform(@TempDir Path etc) throws Exception {
    Path keys = etc.resolve("api-keys");
    Files.writeString(keys, "acme-tenant-key-0123456789  tenant=acme\n");
    Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-------"));
    try (SearchServer keyed = SearchServer.start(searchers,
        ServerConfig.of("127.0.0.1", 0, 1).withApiKeys(ApiKeys.load(keys)))) {
      Map<String, HttpRequest.Builder> calls = new LinkedHashMap<>();
      String base = "http://127.0.0.1:" + keyed.port();
      calls.put("401 GET /search", HttpRequest.newBuilder(URI.create(base + "/search?q=lava")));
      calls.put("403 GET /snapshot", HttpRequest.newBuilder(URI.create(base + "/snapshot"))
          .header("X-Api-Key", "acme-tenant-key-0123456789"));
      calls.put("403 GET /metrics", HttpRequest.newBuilder(URI.create(base + "/metrics"))
          .header("Authorization", "Bearer acme-tenant-key-0123456789"));
      calls.put("403 GET /openapi.json", HttpRequest.newBuilder(URI.create(base + "/openapi.json"))
          .header("Origin", "https://evil.example"));
      calls.put("200 GET /openapi.json", HttpRequest.newBuilder(URI.create(base + "/openapi.json")));
      calls.put("200 GET /health", HttpRequest.newBuilder(URI.create(base + "/health")));
      calls.put("401 GET /explain", HttpRequest.newBuilder(URI.create(base + "/explain?q=lava")));
      calls.put("403 GET /snapshots", HttpRequest.newBuilder(URI.create(base + "/snapshots"))
          .header("X-Api-Key", "acme-tenant-key-0123456789"));
      calls.put("403 GET /manifest", HttpRequest.newBuilder(URI.create(base + "/manifest?snapshot=x"))
          .header("X-Api-Key", "acme-tenant-key-0123456789"));
      for (Map.Entry<String, HttpRequest.Builder> c : calls.entrySet()) {
        String[] expected = c.getKey().split(" ");
        HttpResponse<String> r = HTTP.send(c.getValue().timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(Integer.parseInt(expected[0]), r.statusCode(), c.getKey() + " → " + r.body());
        JsonNode response = document.path("paths").path(expected[2]).path("get").path("responses").path(expected[0]);
        assertTrue(!response.isMissingNode(), c.getKey() + " is not documented");
        JsonNode schema = response.at("/content/application~1json/schema");
        assertEquals(List.of(), schemas.problems(schema, JSON.readTree(r.body())), c.getKey());
      }
    }
  }

  private static List<String> prefixed(String prefix, List<String> problems) {
    return problems.stream().map(p -> prefix + ": " + p).toList();
  }

  private static HttpResponse<String> call(String method, String path, String body) throws Exception {
    HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofString(body);
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(60)).method(method, publisher).build(), HttpResponse.BodyHandlers.ofString());
  }
}
