package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.model.Chunk;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SnapshotFixture;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Range filters through a real server: query string, JSON body (both forms), and refusals as 400. */
class RangeFilterHttpTest {
  @TempDir static Path root;
  private static ReloadingSearcher searchers;
  private static SearchServer server;
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    List<Chunk> chunks = new ArrayList<>();
    for (int year = 2018; year < 2028; year++) {
      chunks.add(SnapshotFixture.chunk("report-" + year, 0, "Annual report " + year,
          "The annual report on glacier retreat for " + year + ".",
          Map.of("year", Integer.toString(year), "published", year + "-03-15", "topic", "glaciers")));
    }
    float[] v = new float[384];
    v[0] = 1;
    SnapshotFixture.withVectors(c -> v).rangeFields(Map.of("year", "long", "published", "date"))
        .shards(List.of(chunks.subList(0, 5), chunks.subList(5, 10))).write(root);
    searchers = new ReloadingSearcher(root, SearchOptions.defaults(), 0);
    server = SearchServer.start(searchers, "127.0.0.1", 0, 4);
  }

  @AfterAll
  static void stop() {
    server.close();
    searchers.close();
  }

  private static HttpResponse<String> get(String filter) throws Exception {
    String url = "http://127.0.0.1:" + server.port() + "/search?mode=bm25&k=20&q="
        + URLEncoder.encode("annual report glacier", StandardCharsets.UTF_8) + "&filter="
        + URLEncoder.encode(filter, StandardCharsets.UTF_8);
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/search"))
        .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static List<Integer> years(HttpResponse<String> r) throws Exception {
    assertEquals(200, r.statusCode(), r.body());
    List<Integer> out = new ArrayList<>();
    JSON.readTree(r.body()).get("results").forEach(h -> out.add(h.get("metadata").get("year").asInt()));
    out.sort(null);
    return out;
  }

  @Test
  void aRangeInTheQueryString() throws Exception {
    assertEquals(List.of(2025, 2026, 2027), years(get("year>=2025")));
    assertEquals(List.of(2020, 2021), years(get("2020<=year<2022")));
    assertEquals(List.of(2018, 2019), years(get("published<2020-03-15")));
    assertEquals(List.of(2018), years(get("published<=2019-03-15T00:30:00+01:00")),
        "an offset is honoured: 2019-03-14T23:30Z is before 2019's publication");
  }

  @Test
  void aRangeInTheJsonBody() throws Exception {
    assertEquals(List.of(2023, 2024), years(post("{\"q\": \"annual report\", \"mode\": \"bm25\", \"k\": 20,"
        + " \"filter\": {\"year\": {\"gt\": 2022, \"lte\": 2024.5}, \"topic\": \"glaciers\"}}")));
    assertEquals(List.of(2027), years(post("{\"q\": \"annual report\", \"mode\": \"bm25\", \"k\": 20,"
        + " \"filter\": [\"published>=2027-01-01\"]}")));
  }

  @Test
  void refusedFiltersAreBadRequests() throws Exception {
    HttpResponse<String> notIndexed = get("topic>=g");
    assertEquals(400, notIndexed.statusCode(), notIndexed.body());
    JsonNode error = JSON.readTree(notIndexed.body());
    assertTrue(error.get("error").asText().contains("'topic' is not range-indexed"), notIndexed.body());
    assertFalse(error.get("error").asText().contains("--filter"), "the API names its own parameter");
    assertTrue(error.get("error").asText().startsWith("filter topic>=g: 'topic' is not range-indexed"), notIndexed.body());
    assertEquals(400, get("year>=soon").statusCode());
    HttpResponse<String> malformed = get("year>=");
    assertEquals(400, malformed.statusCode());
    assertEquals("malformed filter 'year>=': expected KEY>=VALUE, KEY>VALUE, KEY<=VALUE, KEY<VALUE or LOW<=KEY<HIGH",
        JSON.readTree(malformed.body()).get("error").asText());
    assertEquals(400, post("{\"q\": \"x\", \"filter\": {\"year\": {\"between\": 3}}}").statusCode());
    assertEquals(400, post("{\"q\": \"x\", \"filter\": {\"year\": {\"gte\": [3]}}}").statusCode());
    assertEquals(400, post("{\"q\": \"x\", \"filter\": {\"year\": {}}}").statusCode());
  }
}
