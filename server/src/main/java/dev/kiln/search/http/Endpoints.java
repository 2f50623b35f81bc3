package dev.kiln.search.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.RetrievalPath;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.Searcher;
import dev.kiln.search.SettingException;
import dev.kiln.search.context.ContextAssembler;
import dev.kiln.search.filter.MetadataFilter;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What each endpoint answers, apart from how requests arrive: {@link SearchHandler} parses on the
 * network threads, runs {@link #run} on the search pool and the light endpoints inline.
 */
final class Endpoints {
  static final String METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final ServedRoots searchers;
  private final ServerMetrics metrics;
  private final SourceUris sources;
  private final RequestOptionParser options;
  private final ObjectMapper json = new ObjectMapper();
  /** Request bodies: a field given twice is refused, not silently the last one. */
  private final ObjectMapper bodies = JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build();

  /** The web page ({@code /ui}) and what it reads beside the search API. */
  final UiAssets ui = new UiAssets();
  final Inspection inspection;
  /**
   * One for the server's life: its JSON mapper caches what it learned of the phase records, which a
   * mapper made per request learns again on every call (tens of ms a phase on a busy machine).
   */
  private final GroupEndpoint group;

  Endpoints(ServedRoots searchers, ServerMetrics metrics, SourceUris sources) {
    this(searchers, metrics, sources, new RequestOptionParser(RequestLimits.DEFAULTS, null));
  }

  /** @param options reads the per-request retrieval options, within the operator's limits */
  Endpoints(ServedRoots searchers, ServerMetrics metrics, SourceUris sources, RequestOptionParser options) {
    this.options = options;
    this.searchers = searchers;
    this.metrics = metrics;
    this.sources = sources;
    this.inspection = new Inspection(searchers, sources);
    this.group = new GroupEndpoint(searchers, this, sources); // last: it keeps this, fully set
  }

  /** A parsed {@code /search} or {@code /context} request; {@code budget} is unused by search. */
  record SearchCall(String endpoint, SearchRequest request, int budget) {}

  /** Parses a search or context request (GET or POST: {@link Route}); {@code body} is {@code null} for GET. */
  SearchCall parse(String endpoint, String method, String rawQuery, byte[] body) {
    if (method.equals("POST")) {
      JsonNode node = readJson(body);
      QueryParams.checkFields(node, endpoint);
      SearchRequest request = QueryParams.fromJson(node).withOptions(options.fromJson(node));
      int budget = endpoint.equals("context")
          ? QueryParams.budget(node.hasNonNull("budget") ? node.get("budget").asText() : null) : 0;
      return new SearchCall(endpoint, request, budget);
    }
    Map<String, List<String>> p = QueryParams.parseQueryString(rawQuery);
    QueryParams.checkParams(p, endpoint);
    SearchRequest request = QueryParams.fromParams(p).withOptions(options.fromParams(p));
    int budget = endpoint.equals("context")
        ? QueryParams.budget(p.containsKey("budget") ? p.get("budget").get(0) : null) : 0;
    return new SearchCall(endpoint, request, budget);
  }

  /** One JSON value and nothing after it but white space; a field at most once per object. */
  private JsonNode readJson(byte[] body) {
    try (JsonParser parser = bodies.createParser(body == null ? new byte[0] : body)) {
      JsonNode node = bodies.readTree(parser);
      try {
        if (parser.nextToken() != null) {
          throw new BadRequest(TRAILING);
        }
      } catch (JsonProcessingException e) {
        throw new BadRequest(TRAILING);
      }
      return node;
    } catch (JsonProcessingException e) {
      String message = e.getOriginalMessage();
      Matcher duplicate = DUPLICATE.matcher(message);
      throw new BadRequest(duplicate.matches() ? "field '" + duplicate.group(1) + "' appears twice"
          : "body is not valid JSON: " + message);
    } catch (IOException e) {
      throw new BadRequest("body could not be read: " + e.getMessage());
    }
  }

  private static final String TRAILING = "trailing content after the JSON object: send one object per request";

  /** Jackson's message for a field repeated under {@link StreamReadFeature#STRICT_DUPLICATE_DETECTION}. */
  private static final Pattern DUPLICATE = Pattern.compile("Duplicate field '(.*)'");

  /**
   * Runs a search or context call, the request's filter narrowed by the key's binding ({@code key}
   * is {@code null} without API keys). A filter the binding excludes entirely gets the same empty
   * answer as a search that matched nothing, without searching.
   */
  Reply run(SearchCall call, ApiKeys.Key key) throws IOException {
    try {
      return runFiltered(call, key);
    } catch (SettingException e) {
      // Known only once a snapshot is at hand: a range on a key it did not index for ranges, a rerank
      // asked of a server without a reranker.
      throw new BadRequest(QueryParams.clientMessage(e));
    }
  }

  /**
   * The hits' {@code source_uri} is shown relative to its corpus root ({@link SourceUris}) before
   * {@code /context} packs them, so neither the blocks' {@code source} nor the text's headers name the
   * build machine's directories; {@link Searcher#context} is the same search and assembly without it.
   */
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
      SearchResponse response = filter.isPresent()
          ? path.search(request.withFilter(filter.get()))
          : new SearchResponse(searchers.currentId(), request.mode(), List.of());
      response = sources.show(response);
      if (call.endpoint().equals("context")) {
        Searcher s = (Searcher) path;
        return ok(new ContextAssembler(s::countTokens, s.parents(), call.budget()).assemble(response));
      }
      return ok(response);
    }
  }

  /**
   * Open to anyone, with no path and no error text ({@link ServedRoots#health}): {@code ok};
   * {@code degraded} while serving but some root's latest check, reload or verification failed;
   * {@code unavailable} (HTTP 503) while some root has no snapshot it can serve.
   */
  Reply health() throws IOException {
    if (!searchers.serving()) {
      Map<String, Object> body = searchers.health();
      body.put("status", "unavailable");
      return Reply.json(503, json.writeValueAsString(body));
    }
    // A service that can no longer lease what it serves (shutting down) fails here as a search would: 500.
    try (ServedRoots.Leases leases = searchers.acquire()) {
      return ok(searchers.health());
    }
  }

  /** For unbound keys: the manifest, the options and the reload status with its last error. */
  Reply snapshot() throws IOException {
    try (ServedRoots.Leases leases = searchers.acquire()) {
      if (!searchers.federated()) {
        ReloadingSearcher root = searchers.roots().get(0).searchers();
        ObjectNode node = describe(leases.searchers().get(0), root.reloads());
        node.set("reload", json.valueToTree(root.reloadStatus().toMap()));
        return ok(node);
      }
      ObjectNode node = json.createObjectNode();
      node.put("snapshot", searchers.currentId());
      node.put("reloads", searchers.reloads());
      ArrayNode roots = node.putArray("roots");
      for (int i = 0; i < searchers.roots().size(); i++) {
        ServedRoots.Root root = searchers.roots().get(i);
        ObjectNode described = describe(leases.searchers().get(i), root.searchers().reloads());
        described.set("reload", json.valueToTree(root.searchers().reloadStatus().toMap()));
        roots.add(described.put("root", root.label()).put("weight", root.weight()));
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

  /**
   * {@code /internal/group}: a shard group's phases of a router's search ({@link GroupEndpoint}).
   *
   * @param keyed whether this server has API keys
   * @param client the router's client's key (null: none, or unknown)
   */
  Reply group(byte[] body, boolean keyed, ApiKeys.Key client) throws IOException {
    return group.answer(body, keyed, client);
  }

  Reply metrics() {
    String id = searchers.currentId();
    return new Reply(200, METRICS_CONTENT_TYPE, metrics.render(id == null ? "" : id, searchers.reloads())
        + searchers.prometheus() + queryCache(), Map.of());
  }

  /**
   * The query-vector cache's hits and misses on the snapshots served now (summed over federated roots):
   * counters of the current searchers, so they start again at 0 after a reload, which Prometheus's
   * rate() takes as a counter reset.
   */
  private String queryCache() {
    if (!searchers.serving()) {
      return "";
    }
    long hits = 0;
    long misses = 0;
    try (ServedRoots.Leases leases = searchers.acquire()) {
      for (Searcher s : leases.searchers()) {
        hits += s.queryCacheHits();
        misses += s.queryCacheMisses();
      }
    } catch (RuntimeException e) {
      return ""; // swapped out or closing meanwhile: the next scrape has them
    }
    return "# HELP kiln_query_cache_hits_total Query vectors served from the query cache (--query-cache).\n"
        + "# TYPE kiln_query_cache_hits_total counter\n"
        + "kiln_query_cache_hits_total " + hits + "\n"
        + "# HELP kiln_query_cache_misses_total Queries the query cache did not hold (each embedded by the model).\n"
        + "# TYPE kiln_query_cache_misses_total counter\n"
        + "kiln_query_cache_misses_total " + misses + "\n";
  }

  private Reply ok(Object body) throws IOException {
    return Reply.json(200, json.writeValueAsString(body));
  }
}
