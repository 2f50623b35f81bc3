package dev.kiln.search.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.RetrievalPath;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.Searcher;
import dev.kiln.search.context.ContextAssembler;
import dev.kiln.search.filter.FilterException;
import dev.kiln.search.filter.MetadataFilter;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What each endpoint answers, apart from how requests arrive: {@link SearchHandler} parses on the
 * network threads, runs {@link #run} on the search pool and the light endpoints inline.
 */
final class Endpoints {
  static final String METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final ServedRoots searchers;
  private final ServerMetrics metrics;
  private final ObjectMapper json = new ObjectMapper();

  Endpoints(ServedRoots searchers, ServerMetrics metrics) {
    this.searchers = searchers;
    this.metrics = metrics;
  }

  /** A parsed {@code /search} or {@code /context} request; {@code budget} is unused by search. */
  record SearchCall(String endpoint, SearchRequest request, int budget) {}

  /** A client used a method the endpoint does not take: HTTP 405. */
  static final class MethodNotAllowed extends RuntimeException {
    MethodNotAllowed(String message) {
      super(message);
    }
  }

  /** Parses a search or context request; {@code body} is {@code null} for GET. */
  SearchCall parse(String endpoint, String method, String rawQuery, byte[] body) {
    boolean post = switch (method) {
      case "GET" -> false;
      case "POST" -> true;
      default -> throw new MethodNotAllowed("use GET or POST");
    };
    if (post) {
      JsonNode node = readJson(body);
      SearchRequest request = QueryParams.fromJson(node);
      int budget = endpoint.equals("context")
          ? QueryParams.budget(node.hasNonNull("budget") ? node.get("budget").asText() : null) : 0;
      return new SearchCall(endpoint, request, budget);
    }
    Map<String, List<String>> p = QueryParams.parseQueryString(rawQuery);
    SearchRequest request = QueryParams.fromParams(p);
    int budget = endpoint.equals("context")
        ? QueryParams.budget(p.containsKey("budget") ? p.get("budget").get(0) : null) : 0;
    return new SearchCall(endpoint, request, budget);
  }

  private JsonNode readJson(byte[] body) {
    try {
      return json.readTree(body == null ? new byte[0] : body);
    } catch (JsonProcessingException e) {
      throw new BadRequest("body is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new BadRequest("body could not be read: " + e.getMessage());
    }
  }

  /**
   * Runs a search or context call, the request's filter narrowed by the key's binding ({@code key}
   * is {@code null} without API keys). A filter the binding excludes entirely gets the same empty
   * answer as a search that matched nothing, without searching.
   */
  Reply run(SearchCall call, ApiKeys.Key key) throws IOException {
    try {
      return runFiltered(call, key);
    } catch (FilterException e) {
      // Known only once a snapshot is at hand: a range on a key it did not index for ranges.
      throw new BadRequest(QueryParams.clientMessage(e));
    }
  }

  private Reply runFiltered(SearchCall call, ApiKeys.Key key) throws IOException {
    SearchRequest request = call.request();
    Optional<MetadataFilter> filter = key == null ? Optional.of(request.filter())
        : key.narrow(request.filter());
    try (ServedRoots.Leases leases = searchers.acquire()) {
      if (call.endpoint().equals("context") && searchers.federated()) {
        throw new BadRequest("/context packs one snapshot's chunks with its tokenizer and parents: serve a single"
            + " root for it, or use /search");
      }
      RetrievalPath path = leases.path();
      SearchResponse response;
      if (filter.isPresent()) {
        SearchRequest narrowed = new SearchRequest(request.query(), request.mode(), request.k(), filter.get());
        if (call.endpoint().equals("context")) {
          return ok(((Searcher) path).context(narrowed, call.budget()));
        }
        response = path.search(narrowed);
      } else {
        response = new SearchResponse(searchers.currentId(), request.mode(), List.of());
        if (call.endpoint().equals("context")) {
          Searcher s = (Searcher) path;
          return ok(new ContextAssembler(s::countTokens, s.parents(), call.budget()).assemble(response));
        }
      }
      return ok(response);
    }
  }

  Reply health() throws IOException {
    try (ServedRoots.Leases leases = searchers.acquire()) {
      // Still serving, but say when some root's CURRENT cannot be loaded.
      return ok(Map.of("status", searchers.healthy() ? "ok" : "degraded", "snapshot", searchers.currentId(),
          "reload", searchers.reloadStatus()));
    }
  }

  Reply snapshot() throws IOException {
    try (ServedRoots.Leases leases = searchers.acquire()) {
      if (!searchers.federated()) {
        return ok(describe(leases.searchers().get(0), searchers.roots().get(0).searchers().reloads()));
      }
      ObjectNode node = json.createObjectNode();
      node.put("snapshot", searchers.currentId());
      node.put("reloads", searchers.reloads());
      ArrayNode roots = node.putArray("roots");
      for (int i = 0; i < searchers.roots().size(); i++) {
        ServedRoots.Root root = searchers.roots().get(i);
        roots.add(describe(leases.searchers().get(i), root.searchers().reloads()).put("root", root.label())
            .put("weight", root.weight()));
      }
      return ok(node);
    }
  }

  private ObjectNode describe(Searcher s, long reloads) {
    ObjectNode node = json.createObjectNode();
    node.put("snapshot", s.snapshotId());
    node.put("chunks", s.chunkCount());
    node.put("reloads", reloads);
    node.put("options", s.options().describe());
    node.set("manifest", json.valueToTree(s.manifest()));
    return node;
  }

  Reply metrics() {
    return new Reply(200, METRICS_CONTENT_TYPE, metrics.render(searchers.currentId(), searchers.reloads())
        + searchers.prometheus(), Map.of());
  }

  private Reply ok(Object body) throws IOException {
    return Reply.json(200, json.writeValueAsString(body));
  }
}
