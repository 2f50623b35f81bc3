package dev.kiln.router;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.FederatedSearcher;
import dev.kiln.search.RelevanceGate;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.ShardGroupSearch;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.fusion.ReciprocalRankFusion;
import dev.kiln.search.rerank.Reranker;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One search over every shard group, answered as one server answers it (docs/ARCHITECTURE.md,
 * "Serving beyond one machine"). With one root, the root's phases ({@link RootRoute}) on its groups;
 * with several ({@code --root}), every root's phases side by side, each root asked for the depth a
 * federated server asks of it, every hit calibrated, one query vector per model, and the roots'
 * answers merged by {@link FederatedSearcher#merge} itself. Every phase names the snapshot pinned for
 * its root, so no answer mixes two; a group that moved on answers 409 and the search starts again on
 * newer pins, at most {@link #ATTEMPTS} times.
 */
final class Router implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(Router.class);
  static final int ATTEMPTS = 3;
  /** What one federated server answers to {@code /context} (Endpoints): the router answers the same. */
  static final String FEDERATED_CONTEXT = "/context packs one snapshot's chunks with its tokenizer and parents:"
      + " serve a single root for it, or use /search";

  private final RouterConfig config;
  private final List<RootRoute> roots;
  /** Phase answers carry more than the records read from them (k, mode, filtered). */
  private final ObjectMapper json = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private final GroupCalls calls;
  private final Reranker reranker;

  /**
   * @param groups each root's groups, in {@link RouterConfig#roots()} order (one, unlabelled, without roots)
   * @param reranker the cross-encoder of {@link RouterConfig#rerankModel()}, owned from here; null: none
   */
  Router(RouterConfig config, List<RouterGroups> groups, Reranker reranker) {
    this.config = config;
    this.reranker = reranker;
    this.calls = new GroupCalls(config.allowPartial());
    List<RootRoute> rs = new ArrayList<>();
    for (int i = 0; i < groups.size(); i++) {
      boolean one = config.roots().isEmpty();
      rs.add(new RootRoute(one ? "" : config.roots().get(i).label(), one ? 1.0 : config.roots().get(i).weight(),
          groups.get(i), config, json, calls, reranker));
    }
    this.roots = List.copyOf(rs);
  }

  boolean federated() {
    return roots.size() > 1;
  }

  List<RootRoute> roots() {
    return roots;
  }

  /** An answer: status, JSON body, extra headers. */
  record Answer(int status, String body, Map<String, String> headers) {
    Answer withHeader(String name, String value) {
      Map<String, String> more = new LinkedHashMap<>(headers);
      more.put(name, value);
      return new Answer(status, body, more);
    }
  }

  /**
   * @param endpoint {@code search} or {@code context}, as the client called it
   * @param method GET or POST, as the client sent it
   * @param headers what is passed on to the groups (the router's own key and the client's, RouterServer)
   */
  Answer answer(String endpoint, String method, String queryString, String body, Map<String, String> headers)
      throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.deadlineMs());
    String why = "no snapshot is held by every group";
    RouteTimings timings = new RouteTimings();
    ObjectNode request = json.createObjectNode();
    request.put("method", method).put("query_string", queryString).put("body", body).put("endpoint", endpoint);
    if (federated()) {
      request.put("federated", true).put("calibrate_all", true);
    }
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        Answer answer = federated() ? federated(request, headers, deadline, timings)
            : one(endpoint, request, headers, deadline, timings);
        LOG.debug("{}: {}", endpoint, timings);
        return answer.withHeader("Server-Timing", timings.header());
      } catch (RouteException e) {
        switch (e.kind) {
          case CLIENT -> {
            return new Answer(e.status, json.writeValueAsString(e.body), Map.of());
          }
          case NOT_HELD -> {
            why = e.getMessage();
            roots.forEach(r -> r.groups.refresh()); // learn what each group holds now, then pin again
          }
          case UNAVAILABLE -> {
            return unavailable(e.getMessage());
          }
        }
      }
    }
    return unavailable(why);
  }

  private Answer one(String endpoint, ObjectNode request, Map<String, String> headers, long deadline,
      RouteTimings timings) throws RouteException, IOException {
    RootRoute root = roots.get(0);
    RootRoute.Prepared p = root.prepare(request, headers, deadline, timings);
    RootRoute.Routed routed = root.finish(p, false, headers, deadline, timings);
    long started = System.nanoTime();
    SearchResponse response = new SearchResponse(p.pinned(), p.mode(), routed.hits());
    ObjectNode out = endpoint.equals("context")
        ? (ObjectNode) root.context(p, response, routed.owners(), headers, deadline, timings)
        : json.valueToTree(response);
    if (!routed.missing().isEmpty()) {
      out.put("partial", true);
      out.putPOJO("missing_shards", routed.missing());
    }
    Answer answer = new Answer(200, json.writeValueAsString(out), Map.of());
    timings.since("answer", started);
    return answer;
  }

  /**
   * Every root's search side by side, merged as {@link FederatedSearcher} merges: each root asked for
   * {@link FederatedSearcher#depth} candidates ({@code federated} in the phases), every hit calibrated,
   * and the roots of one model searched with one query vector (the first such root's, in root order, as
   * the federated server embeds once per model, with the first root of it).
   */
  private Answer federated(ObjectNode request, Map<String, String> headers, long deadline, RouteTimings timings)
      throws RouteException, IOException {
    List<Future<RootRoute.Prepared>> preparing = new ArrayList<>();
    for (RootRoute r : roots) {
      preparing.add(calls.async(() -> r.prepare(request, headers, deadline, timings)));
    }
    List<RootRoute.Prepared> prepared = new ArrayList<>();
    RouteException failure = null;
    for (Future<RootRoute.Prepared> f : preparing) {
      try {
        prepared.add(GroupCalls.join(f));
      } catch (RouteException e) {
        failure = failure == null || e.kind == RouteException.Kind.CLIENT ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
    if (request.path("endpoint").asText().equals("context")) {
      // Refused where one federated server refuses it: after the request's parameters and key were checked.
      return error(400, FEDERATED_CONTEXT);
    }
    Map<String, float[]> vectors = new HashMap<>();
    for (int i = 0; i < prepared.size(); i++) {
      RootRoute.Prepared p = prepared.get(i);
      if (!p.excluded()) {
        float[] v = vectors.computeIfAbsent(p.model(), m -> p.global().vector());
        prepared.set(i, v == p.global().vector() ? p : p.withVector(v));
      }
    }
    List<Future<RootRoute.Routed>> finishing = new ArrayList<>();
    for (int i = 0; i < roots.size(); i++) {
      RootRoute r = roots.get(i);
      RootRoute.Prepared p = prepared.get(i);
      finishing.add(calls.async(() -> r.finish(p, true, headers, deadline, timings)));
    }
    List<FederatedSearcher.PathAnswer> answers = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < roots.size(); i++) {
      RootRoute.Routed routed = GroupCalls.join(finishing.get(i));
      RootRoute r = roots.get(i);
      RootRoute.Prepared p = prepared.get(i);
      answers.add(new FederatedSearcher.PathAnswer(r.label, r.weight, new SearchResponse(p.pinned(), p.mode(),
          routed.hits())));
      routed.missing().forEach(s -> missing.add(r.label + ":" + s));
    }
    long started = System.nanoTime();
    RootRoute.Prepared first = prepared.get(0);
    ShardGroupSearch.Plan plan = prepared.stream().filter(p -> !p.excluded()).map(RootRoute.Prepared::plan)
        .findFirst().orElse(null);
    // The merge as kiln serve sets it from its options (ServeCommand): RRF with --fusion rrf, else calibrated.
    FederatedSearcher.Merge merge = plan != null && FusionMethod.parse(plan.fusion()) == FusionMethod.RRF
        ? FederatedSearcher.Merge.RRF : FederatedSearcher.Merge.CALIBRATED;
    RelevanceGate gate = plan == null ? RelevanceGate.OFF : plan.gate();
    SearchMode mode = first.mode();
    SearchResponse merged = FederatedSearcher.merge(answers, merge,
        new ReciprocalRankFusion(plan == null ? 60 : plan.rrfK()), first.clientK(), mode, gate);
    ObjectNode out = json.valueToTree(merged);
    if (!missing.isEmpty()) {
      out.put("partial", true);
      out.putPOJO("missing_shards", missing);
    }
    timings.since("federate", started);
    return new Answer(200, json.writeValueAsString(out), Map.of());
  }

  private Answer unavailable(String message) throws IOException {
    ObjectNode error = json.createObjectNode().put("error", message);
    return new Answer(503, json.writeValueAsString(error), Map.of("Retry-After", "1"));
  }

  private Answer error(int status, String message) throws IOException {
    return new Answer(status, json.writeValueAsString(json.createObjectNode().put("error", message)), Map.of());
  }

  /** {@code /health}: one root's groups; federated, each root's, ok only while every root is. */
  Map<String, Object> health() {
    if (!federated()) {
      return roots.get(0).groups.health();
    }
    Map<String, Object> m = new LinkedHashMap<>();
    List<Object> rs = new ArrayList<>();
    List<String> snapshots = new ArrayList<>();
    boolean ok = true;
    for (RootRoute r : roots) {
      Map<String, Object> h = new LinkedHashMap<>();
      h.put("root", r.label);
      h.put("weight", r.weight);
      h.putAll(r.groups.health());
      ok &= "ok".equals(h.get("status"));
      snapshots.add(r.label + "=" + h.get("snapshot"));
      rs.add(h);
    }
    m.put("status", ok ? "ok" : "unavailable");
    m.put("snapshot", String.join(",", snapshots));
    m.put("roots", rs);
    return m;
  }

  @Override
  public void close() {
    calls.close();
    if (reranker != null) {
      try {
        reranker.close();
      } catch (IOException e) {
        LOG.warn("closing the reranker: {}", e.toString());
      }
    }
  }
}
