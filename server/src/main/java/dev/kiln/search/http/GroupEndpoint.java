package dev.kiln.search.http;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.FederatedSearcher;
import dev.kiln.search.HitScope;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.Searcher;
import dev.kiln.search.SettingException;
import dev.kiln.search.ShardGroupSearch;
import dev.kiln.search.ShardGroupStats;
import dev.kiln.search.context.ContextAssembler;
import dev.kiln.search.context.ParentLookup;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;

/**
 * {@code POST /internal/group}: a shard group's side of a router's search ({@link ShardGroupSearch};
 * docs/FORMATS.md, "Shard group protocol"). The body names the phase ({@code describe}, {@code stats},
 * {@code legs}, {@code fetch}, {@code context}, {@code parents}: {@link GroupParents}, and hybrid
 * feedback's {@code chunks}, {@code rescore}, {@code term_stats}, {@code again} and rewriting's {@code
 * analyze}: {@link GroupFeedbackPhases}), the snapshot the router pinned (every phase but {@code describe}) and
 * the client's own request as it reached the router ({@code method}, {@code query_string},
 * {@code body}), which is parsed here exactly as {@code /search} parses it, so a bad parameter is the
 * same 400, and narrowed by the client's API key, which the router passes on in {@code X-Kiln-Client-Key}
 * (its own key, checked unbound by {@link SearchHandler}, authenticates the call); every hit reference
 * a phase takes is checked against that narrowed filter ({@link GroupScope}).
 *
 * <p>A snapshot this server does not hold open answers 409 with the ids it holds ({@link
 * SnapshotNotHeld}): the router tries another replica or an older id, and never mixes two snapshots.
 */
final class GroupEndpoint {
  /**
   * The protocol version {@code describe} answers; a router refuses a group of another. 3 adds the
   * {@code context} phase and the {@code endpoint}, {@code federated} and {@code calibrate_all} fields; 4
   * takes the client's key in {@code X-Kiln-Client-Key} (the router's own, unbound, authenticates the call)
   * and refuses hit references outside the narrowed filter (403); 5 adds the {@code parents} phase and the
   * context phase's {@code parents} ({@link GroupParents}), so that a routed {@code /context} expands every
   * group's hits to their parents; 6 honours the client's per-request retrieval options in every phase
   * ({@code stats} answers the plan they make, {@code effective}, and the client's {@code query} and {@code
   * rerank}), takes {@code depth} (the candidates a reranking router asks for), {@code bm25_terms} in
   * {@code legs} (a query the router rewrote) and the {@code analyze} phase, and serves groups with a
   * reranker or a named rewriter ({@code --prf}, {@code --rewriter}), both of which the router runs.
   */
  static final int PROTOCOL = 6;
  /** The most candidates a router may ask a group for ({@code depth}); a client's rerank depth is bounded lower. */
  static final int MAX_DEPTH = 100_000;

  /** A rewritten query's weighted BM25 terms, in their order (the order Lucene sums their scores in). */
  private static final TypeReference<LinkedHashMap<String, Float>> WEIGHTS = new TypeReference<>() {};

  private final ServedRoots roots;
  private final Endpoints endpoints;
  private final SourceUris sources;
  private final ObjectMapper json = new ObjectMapper();
  private final GroupFeedbackPhases feedback = new GroupFeedbackPhases(json);

  GroupEndpoint(ServedRoots roots, Endpoints endpoints, SourceUris sources) {
    this.roots = roots;
    this.endpoints = endpoints;
    this.sources = sources;
  }

  /**
   * @param keyed whether this server has API keys (then the router's own key was checked unbound)
   * @param key the router's client's key, by which every phase but {@code describe} is narrowed; null
   *     when it sent none or an unknown one (401 on a keyed server, as {@code /search} answers)
   */
  Reply answer(byte[] body, boolean keyed, ApiKeys.Key key) throws IOException {
    if (roots.federated()) {
      throw new BadRequest("a shard group serves one snapshots root: start it with one --snapshots (to search"
          + " several roots as one through a router, give each root its own groups and name the roots with"
          + " kiln route --root)");
    }
    JsonNode node;
    try {
      node = json.readTree(body == null ? new byte[0] : body);
    } catch (IOException e) {
      throw new BadRequest("body is not valid JSON: " + e.getMessage());
    }
    if (node == null || !node.isObject()) {
      throw new BadRequest("body must be a JSON object with a 'phase'");
    }
    String phase = node.path("phase").asText("");
    ReloadingSearcher reloading = roots.roots().get(0).searchers();
    if (phase.equals("describe")) {
      try (ReloadingSearcher.Lease lease = reloading.acquire()) {
        return ok(describe(lease.searcher(), reloading));
      }
    }
    if (keyed && key == null) {
      return SearchHandler.keyRequired();
    }
    String snapshot = node.path("snapshot").asText("");
    if (snapshot.isEmpty()) {
      throw new BadRequest("'snapshot' is required: the snapshot id the router pinned");
    }
    try (ReloadingSearcher.Lease lease = reloading.acquire(snapshot)) {
      Searcher searcher = lease.searcher();
      ShardGroupSearch.checkSplittable(searcher);
      Endpoints.SearchCall call = parse(node);
      int clientK = call.request().k();
      SearchRequest parsed = federated(call.request(), node);
      Optional<SearchRequest> narrowed = clientRequest(parsed, key);
      if (phase.equals("context")) {
        // The router searched; the hits it sends are packed here, with this snapshot's tokenizer and
        // parents (this group's own, and those the router sends for the other groups' hits). Their texts are the caller's own (echoed); a parent is read only for a chunk of this
        // group that the narrowed filter lets through, never for a parent_id the caller names (HitScope).
        if (!node.path("response").isObject()) {
          throw new BadRequest("the context phase needs 'response': the routed /search answer to pack");
        }
        SearchResponse response = json.treeToValue(node.get("response"), SearchResponse.class);
        ParentLookup own = narrowed.isEmpty() ? ParentLookup.NONE
            : HitScope.parents(searcher, narrowed.get().filter());
        // The other groups' hits' parents, which they resolved for the router (phase parents, GroupParents).
        ParentLookup parents = GroupParents.lookup(own, node.get("parents"));
        return ok(new ContextAssembler(searcher::countTokens, parents, call.budget()).assemble(response));
      }
      if (phase.equals("parents")) {
        return ok(json.createObjectNode().set("parents", GroupParents.resolve(searcher,
            narrowed.map(SearchRequest::filter), node.path("chunk_ids"))));
      }
      if (narrowed.isEmpty()) {
        return ok(json.createObjectNode().put("excluded", true).put("snapshot", searcher.snapshotId())
            .put("mode", parsed.mode().name()).put("k", parsed.k()).put("client_k", clientK));
      }
      SearchRequest request = narrowed.get();
      try {
        // The request's retrieval options over the server's, checked as /search checks them (the same 400).
        ShardGroupSearch.Effective options = ShardGroupSearch.effective(searcher, request.options());
        return switch (phase) {
          case "stats" -> {
            boolean embed = node.path("embed").asBoolean(true);
            ObjectNode out = json.valueToTree(ShardGroupStats.stats(searcher, options, request.query(),
                request.mode(), request.filter(), embed));
            if (embed && out.path("vector").isNull() && node.path("calibrate_all").asBoolean(false)) {
              // A federating router calibrates every hit, as FederatedSearcher does, BM25's too.
              out.putPOJO("vector", searcher.embedQuery(request.query()));
            }
            out.put("k", request.k());
            out.put("client_k", clientK);
            out.put("mode", request.mode().name());
            // What the router's reranker needs: the client's text and whether the request asks for it.
            out.put("query", request.query());
            Boolean rerank = request.options().rerank();
            if (rerank != null) {
              out.put("rerank", rerank);
            }
            out.put("filtered", searcher.bind(request.filter()).toQuery() != null);
            yield ok(out);
          }
          case "legs" -> ok(json.createObjectNode().putPOJO("legs", ShardGroupSearch.legs(searcher, options.options(),
              request.query(), node.hasNonNull("bm25_terms") ? json.convertValue(node.get("bm25_terms"), WEIGHTS) : null,
              request.mode(), request.filter(), request.k(),
              json.treeToValue(node.get("global"), ShardGroupSearch.Global.class))));
          case "fetch" -> {
            float[] calibrate = node.hasNonNull("calibrate") ? json.treeToValue(node.get("calibrate"), float[].class)
                : null;
            List<SearchHit> hits = ShardGroupSearch.fetch(searcher,
                GroupScope.checked(searcher, hits(node.path("hits")), request.filter()), calibrate);
            SearchResponse shown = sources.show(new SearchResponse(searcher.snapshotId(), request.mode(), hits));
            yield ok(json.createObjectNode().putPOJO("hits", shown.results()));
          }
          case "chunks", "rescore", "term_stats", "again", "analyze" -> ok(feedback.answer(phase, node, searcher,
              request));
          default -> throw new BadRequest("unknown phase '" + phase + "': use describe, stats, legs, chunks, rescore,"
              + " term_stats, again, analyze, fetch, context or parents");
        };
      } catch (SettingException e) { // a FilterException too
        throw new BadRequest(QueryParams.clientMessage(e));
      } catch (GroupScope.Refused e) {
        return Reply.error(403, e.getMessage());
      }
    } catch (IllegalStateException e) {
      // A pipeline the group cannot split (checkSplittable): the router names it at start-up.
      return Reply.error(501, e.getMessage());
    }
  }

  /** What a router checks a replica against at start-up and polls: root, model, shards, held snapshots. */
  private ObjectNode describe(Searcher searcher, ReloadingSearcher reloading) {
    ObjectNode out = json.createObjectNode();
    out.put("root", reloading.rootName());
    out.put("snapshot", searcher.snapshotId());
    out.putPOJO("held", reloading.held());
    out.put("shards", searcher.shardSelection().toString());
    out.putPOJO("plan", ShardGroupSearch.plan(searcher));
    out.put("protocol", PROTOCOL);
    try {
      ShardGroupSearch.checkSplittable(searcher);
      out.putNull("unsupported");
    } catch (IllegalStateException e) {
      out.put("unsupported", e.getMessage());
    }
    return out;
  }

  /**
   * The client's request, parsed as {@code /search} parses it, and its filter narrowed by the
   * caller's key: empty when the key's binding excludes the filter entirely (the single server then
   * answers no hits without searching; the router does the same).
   */
  private Optional<SearchRequest> clientRequest(SearchRequest request, ApiKeys.Key key) {
    if (key == null) {
      return Optional.of(request);
    }
    return key.narrow(request.filter())
        .map(f -> new SearchRequest(request.query(), request.mode(), request.k(), f, request.options()));
  }

  /**
   * The client's request as the endpoint it called ({@code endpoint}: {@code search}, the default, or
   * {@code context}) parses it, so that {@code /context}'s budget is read and checked as one server does.
   */
  private Endpoints.SearchCall parse(JsonNode node) {
    String method = node.path("method").asText("GET");
    byte[] body = node.hasNonNull("body") ? node.get("body").asText().getBytes(StandardCharsets.UTF_8) : null;
    String query = node.hasNonNull("query_string") ? node.get("query_string").asText() : null;
    String endpoint = node.path("endpoint").asText("search");
    if (!endpoint.equals("search") && !endpoint.equals("context")) {
      throw new BadRequest("unknown endpoint '" + endpoint + "': use search or context");
    }
    return endpoints.parse(endpoint, method.equals("POST") ? "POST" : "GET", query, body);
  }

  /**
   * With {@code "federated": true} (a router federating roots), the request with its k replaced by the
   * depth {@link FederatedSearcher} asks each root for; the stats phase reports both ({@code k},
   * {@code client_k}). With {@code "depth"} (a router that reranks), k is that many candidates.
   */
  private static SearchRequest federated(SearchRequest request, JsonNode node) {
    int k = request.k();
    if (node.path("federated").asBoolean(false)) {
      k = FederatedSearcher.depth(k);
    }
    if (node.has("depth")) {
      // Protocol 6: the candidates the router's reranker rescores, set after the statistics phase.
      k = node.path("depth").asInt(0);
      if (k < 1 || k > MAX_DEPTH) {
        throw new BadRequest("'depth' must be in 1.." + MAX_DEPTH + ": the candidates the router reranks");
      }
    }
    return k == request.k() ? request
        : new SearchRequest(request.query(), request.mode(), k, request.filter(), request.options());
  }

  private List<ShardGroupSearch.Hit> hits(JsonNode array) throws IOException {
    List<ShardGroupSearch.Hit> out = new ArrayList<>();
    for (JsonNode h : array) {
      out.add(json.treeToValue(h, ShardGroupSearch.Hit.class));
    }
    return out;
  }

  private Reply ok(Object body) throws IOException {
    return Reply.json(200, json.writeValueAsString(body));
  }
}
