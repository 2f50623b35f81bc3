package dev.kiln.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@code kiln serve} over HTTP: each search is one {@code POST /search} with a JSON body (the
 * request and response documented in the README's "HTTP service"). A non-200 answer becomes a {@link
 * KilnClientException} carrying the server's {@code error} text and status.
 */
final class HttpBackend implements KilnBackend {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI search;
  private final String apiKey;
  private final Duration timeout;
  private final HttpClient http;

  HttpBackend(URI base, String apiKey, Duration timeout) {
    String b = base.toString();
    this.search = URI.create((b.endsWith("/") ? b : b + "/") + "search");
    this.apiKey = apiKey;
    this.timeout = timeout;
    // HTTP/1.1: the server is plain HTTP, so an h2c upgrade attempt would only cost a round trip.
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
  }

  @Override
  public List<SearchHit> search(String query, SearchMode mode, int k, KilnFilter filter) {
    if (filter.matchesNothing()) {
      return List.of();
    }
    ObjectNode body = JSON.createObjectNode().put("q", query).put("k", k).put("mode", mode.label());
    if (!filter.isEmpty()) {
      body.set("filter", filterJson(filter));
    }
    HttpRequest.Builder request = HttpRequest.newBuilder(search).timeout(timeout)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
    if (apiKey != null) {
      request.header("Authorization", "Bearer " + apiKey);
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new KilnClientException("kiln serve at " + search + " did not answer: " + e, 0, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KilnClientException("interrupted while searching " + search, 0, e);
    }
    return hits(response);
  }

  /**
   * The filter in the API's object form ({@code {"lang": ["en", "de"], "year": {"gte": "2020"}}}), which
   * carries values verbatim; the list of expressions when a key has both kinds of condition or one range
   * operator twice, which the object form cannot hold.
   */
  static JsonNode filterJson(KilnFilter filter) {
    Set<String> rangeKeys = new HashSet<>();
    Set<String> keyOps = new HashSet<>();
    boolean objectForm = true;
    for (KilnFilter.Range r : filter.ranges()) {
      rangeKeys.add(r.key());
      objectForm &= keyOps.add(r.key() + r.op().symbol()) && !filter.exact().containsKey(r.key());
    }
    if (!objectForm) {
      ArrayNode list = JSON.createArrayNode();
      filter.expressions().forEach(list::add);
      return list;
    }
    ObjectNode out = JSON.createObjectNode();
    filter.exact().forEach((key, values) -> values.forEach(out.withArray(key)::add));
    for (KilnFilter.Range r : filter.ranges()) {
      out.withObjectProperty(r.key()).put(r.op().jsonName(), r.value());
    }
    return out;
  }

  private List<SearchHit> hits(HttpResponse<String> response) {
    JsonNode body;
    try {
      body = JSON.readTree(response.body());
    } catch (IOException e) {
      throw new KilnClientException("kiln serve answered " + response.statusCode() + " with a body that is not JSON",
          response.statusCode(), e);
    }
    if (response.statusCode() != 200) {
      String error = body != null && body.hasNonNull("error") ? body.get("error").asText() : response.body();
      throw new KilnClientException("kiln serve refused the search (" + response.statusCode() + "): " + error,
          response.statusCode(), null);
    }
    List<SearchHit> out = new ArrayList<>();
    for (JsonNode h : body.path("results")) {
      Map<String, String> metadata = new LinkedHashMap<>();
      h.path("metadata").properties().forEach(e -> metadata.put(e.getKey(), e.getValue().asText()));
      out.add(new SearchHit(h.path("chunk_id").asText(), h.path("doc_id").asText(), h.path("score").asDouble(),
          h.path("text").asText(null), h.path("title").asText(null), metadata,
          h.hasNonNull("relevance") ? h.get("relevance").asDouble() : null,
          h.hasNonNull("root") ? h.get("root").asText() : null));
    }
    return out;
  }

  @Override
  public void close() {
    http.close();
  }
}
