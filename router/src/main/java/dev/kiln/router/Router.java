package dev.kiln.router;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.RelevanceGate;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.ShardGroupSearch;
import dev.kiln.search.ShardMerge;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One search over every shard group, answered as one server over the whole snapshot answers it
 * (docs/ARCHITECTURE.md, "Serving beyond one machine"): the snapshot is pinned ({@link Topology#pin}),
 * then three phases run on one replica of every group in parallel — statistics (summed here), legs
 * (merged and fused here with the searcher's own classes, {@link ShardMerge}), fetch of the hits kept
 * — with, for hybrid search with feedback, the feedback passes between legs and fetch ({@link
 * FeedbackPasses}); each phase naming the pinned snapshot, so no answer mixes two. A group that moved on answers 409 and the
 * search starts again on a newer pin, at most {@link #ATTEMPTS} times.
 */
final class Router implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(Router.class);
  static final int ATTEMPTS = 3;

  private final RouterConfig config;
  private final RouterGroups groups;
  /** Phase answers carry more than the records read from them (k, mode, filtered). */
  private final ObjectMapper json = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private final ExecutorService fanOut = Executors.newVirtualThreadPerTaskExecutor();

  Router(RouterConfig config, RouterGroups groups) {
    this.config = config;
    this.groups = groups;
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
   * @param method GET or POST, as the client sent it to {@code /search}
   * @param headers what is passed on to the groups (the client's API key)
   */
  Answer search(String method, String queryString, String body, Map<String, String> headers) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.deadlineMs());
    String why = "no snapshot is held by every group";
    RouteTimings timings = new RouteTimings();
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      List<GroupClient> live = config.allowPartial() ? groups.live() : groups.all();
      String pinned = Topology.pin(live);
      if (pinned == null) {
        groups.refresh();
        continue;
      }
      ObjectNode request = json.createObjectNode();
      request.put("snapshot", pinned).put("method", method).put("query_string", queryString).put("body", body);
      try {
        Answer answer = answer(pinned, request, live, headers, deadline, timings);
        LOG.debug("search {}: {}", pinned, timings);
        return answer.withHeader("Server-Timing", timings.header());
      } catch (RouteException e) {
        switch (e.kind) {
          case CLIENT -> {
            return new Answer(e.status, json.writeValueAsString(e.body), Map.of());
          }
          case NOT_HELD -> {
            why = e.getMessage();
            groups.refresh(); // learn what each group holds now, then pin again
          }
          case UNAVAILABLE -> {
            return unavailable(e.getMessage());
          }
        }
      }
    }
    return unavailable(why);
  }

  private Answer unavailable(String message) throws IOException {
    ObjectNode error = json.createObjectNode().put("error", message);
    return new Answer(503, json.writeValueAsString(error), Map.of("Retry-After", "1"));
  }

  private Answer answer(String pinned, ObjectNode request, List<GroupClient> live, Map<String, String> headers,
      long deadline, RouteTimings timings) throws RouteException, IOException {
    List<GroupClient> answering = new ArrayList<>(live);
    List<String> missing = new ArrayList<>();
    for (GroupClient g : groups.all()) {
      if (!live.contains(g)) {
        missing.add(g.shards());
      }
    }
    // Phase 1: statistics.
    long started = System.nanoTime();
    Map<GroupClient, JsonNode> stats = phase("stats", request, answering, headers, deadline, missing, timings);
    timings.since("stats", started);
    started = System.nanoTime();
    if (answering.isEmpty()) {
      throw RouteException.unavailable(-1, "no group answered");
    }
    JsonNode first = stats.get(answering.get(0));
    SearchMode mode = SearchMode.valueOf(first.path("mode").asText());
    if (first.path("excluded").asBoolean()) {
      // The API key's binding excludes the filter entirely: no hits, as one server answers it.
      return new Answer(200, json.writeValueAsString(new SearchResponse(pinned, mode, List.of())), Map.of());
    }
    List<ShardGroupSearch.Stats> parsed = new ArrayList<>();
    for (GroupClient g : answering) {
      ShardGroupSearch.Stats s = json.treeToValue(stats.get(g), ShardGroupSearch.Stats.class);
      if (!pinned.equals(s.snapshot())) {
        throw new IllegalStateException("group " + g.index() + " answered for snapshot " + s.snapshot() + ", not "
            + pinned);
      }
      parsed.add(s);
    }
    int k = first.path("k").asInt();
    ShardGroupSearch.Global global = ShardGroupSearch.sum(parsed, first.path("filtered").asBoolean());
    // Phase 2: legs.
    ObjectNode legsRequest = request.deepCopy().put("phase", "legs");
    legsRequest.set("global", json.valueToTree(global));
    timings.since("sum", started);
    started = System.nanoTime();
    Map<GroupClient, JsonNode> legs = phase("legs", legsRequest, answering, headers, deadline, missing, timings);
    timings.since("legs", started);
    started = System.nanoTime();
    List<List<ShardGroupSearch.Leg>> perGroup = new ArrayList<>();
    // Only the statistics phase drops groups, so answering and parsed stay aligned.
    List<ShardGroupSearch.Stats> answered = parsed;
    for (GroupClient g : answering) {
      List<ShardGroupSearch.Leg> l = new ArrayList<>();
      for (JsonNode n : legs.get(g).path("legs")) {
        l.add(json.treeToValue(n, ShardGroupSearch.Leg.class));
      }
      perGroup.add(l);
    }
    long[] starts = ShardMerge.shardStarts(answered, !missing.isEmpty());
    ShardGroupSearch.Plan plan = answered.get(0).plan();
    Map<Integer, GroupClient> byShard = new HashMap<>();
    for (int i = 0; i < answering.size(); i++) {
      for (int shard : answered.get(i).shards()) {
        byShard.put(shard, answering.get(i));
      }
    }
    List<ShardMerge.Merged> merged;
    if (mode == SearchMode.HYBRID && FeedbackPasses.needed(plan)) {
      // Phases 2b: the feedback passes, on the merged first pass (FeedbackPasses).
      List<List<ShardGroupSearch.Hit>> firstPass = new ArrayList<>();
      for (int l = 0; l < 2; l++) {
        List<ShardGroupSearch.Leg> parts = new ArrayList<>();
        for (List<ShardGroupSearch.Leg> g : perGroup) {
          parts.add(g.get(l));
        }
        firstPass.add(ShardMerge.join(parts, starts));
      }
      FeedbackPasses passes = new FeedbackPasses(json, request,
          bodies -> phaseEach(bodies, headers, deadline, timings), answering, byShard, starts, plan);
      // The first pass's join; "merge" below is the fusion after the feedback passes, one entry each.
      timings.since("join", started);
      started = System.nanoTime();
      merged = ShardMerge.fuse(passes.run(firstPass.get(0), firstPass.get(1), global, k), starts, k, plan.toFusion());
      timings.since("feedback", started);
      started = System.nanoTime();
    } else {
      merged = ShardMerge.merge(perGroup, starts, k, plan.toFusion());
    }
    // Phase 3: fetch the kept hits from the groups that hold them.
    Map<GroupClient, List<ShardMerge.Merged>> wanted = new LinkedHashMap<>();
    for (ShardMerge.Merged m : merged) {
      wanted.computeIfAbsent(byShard.get(m.shard()), x -> new ArrayList<>()).add(m);
    }
    Map<GroupClient, ObjectNode> fetches = new LinkedHashMap<>();
    RelevanceGate gate = plan.gate();
    // A gate compares calibrated scores: dense scores are; other modes' hits the groups calibrate
    // against the query's embedding as they fetch them.
    boolean calibrate = !gate.isOff() && mode != SearchMode.DENSE;
    wanted.forEach((g, ms) -> {
      ObjectNode f = request.deepCopy().put("phase", "fetch");
      if (calibrate) {
        f.putPOJO("calibrate", global.vector());
      }
      var hits = f.putArray("hits");
      for (ShardMerge.Merged m : ms) {
        hits.addObject().put("shard", m.shard()).put("doc", m.doc()).put("score", m.score());
      }
      fetches.put(g, f);
    });
    timings.since("merge", started);
    started = System.nanoTime();
    Map<GroupClient, JsonNode> fetched = phaseEach(fetches, headers, deadline, timings);
    timings.since("fetch", started);
    started = System.nanoTime();
    Map<ShardMerge.Merged, SearchHit> hitOf = new HashMap<>();
    for (Map.Entry<GroupClient, List<ShardMerge.Merged>> e : wanted.entrySet()) {
      JsonNode hits = fetched.get(e.getKey()).path("hits");
      for (int i = 0; i < e.getValue().size(); i++) {
        hitOf.put(e.getValue().get(i), json.treeToValue(hits.get(i), SearchHit.class));
      }
    }
    List<SearchHit> results = new ArrayList<>(merged.size());
    for (ShardMerge.Merged m : merged) {
      SearchHit h = hitOf.get(m);
      results.add(!gate.isOff() && mode == SearchMode.DENSE ? h.withRelevance(h.score()) : h);
    }
    results = gate.apply(results);
    ObjectNode out = json.valueToTree(new SearchResponse(pinned, mode, results));
    if (!missing.isEmpty()) {
      out.put("partial", true);
      out.putPOJO("missing_shards", missing);
    }
    Answer answer = new Answer(200, json.writeValueAsString(out), Map.of());
    timings.since("answer", started);
    return answer;
  }

  /**
   * One phase on every group in {@code answering}, in parallel. With partial answers allowed a group
   * that is unavailable is dropped from {@code answering} and its shards added to {@code missing}.
   */
  private Map<GroupClient, JsonNode> phase(String phase, ObjectNode request, List<GroupClient> answering,
      Map<String, String> headers, long deadline, List<String> missing, RouteTimings timings) throws RouteException {
    Map<GroupClient, ObjectNode> bodies = new LinkedHashMap<>();
    for (GroupClient g : answering) {
      ObjectNode body = request.deepCopy().put("phase", phase);
      if (phase.equals("stats") && !bodies.isEmpty()) {
        // The query is embedded once, by the first group: the others would only spend a model call
        // (most of a stats call's work) on a vector that sum() discards.
        body.put("embed", false);
      }
      bodies.put(g, body);
    }
    Map<GroupClient, Future<JsonNode>> calls = submit(phase, bodies, headers, deadline, timings);
    Map<GroupClient, JsonNode> out = new LinkedHashMap<>();
    RouteException failure = null;
    for (Map.Entry<GroupClient, Future<JsonNode>> e : calls.entrySet()) {
      try {
        out.put(e.getKey(), join(e.getValue()));
      } catch (RouteException ex) {
        if (ex.kind == RouteException.Kind.UNAVAILABLE && config.allowPartial() && phase.equals("stats")) {
          answering.remove(e.getKey());
          missing.add(e.getKey().shards());
          LOG.warn("partial answer without group {}: {}", e.getKey().index(), ex.getMessage());
        } else if (failure == null || ex.kind == RouteException.Kind.CLIENT) {
          failure = ex;
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
    return out;
  }

  private Map<GroupClient, JsonNode> phaseEach(Map<GroupClient, ObjectNode> bodies, Map<String, String> headers,
      long deadline, RouteTimings timings) throws RouteException {
    Map<GroupClient, JsonNode> out = new LinkedHashMap<>();
    // Each body names its phase (fetch, or one of the feedback passes' chunks, rescore, term_stats, again).
    String phase = bodies.isEmpty() ? "fetch" : bodies.values().iterator().next().path("phase").asText("fetch");
    for (Map.Entry<GroupClient, Future<JsonNode>> e : submit(phase, bodies, headers, deadline, timings).entrySet()) {
      out.put(e.getKey(), join(e.getValue()));
    }
    return out;
  }

  private Map<GroupClient, Future<JsonNode>> submit(String phase, Map<GroupClient, ObjectNode> bodies,
      Map<String, String> headers, long deadline, RouteTimings timings) {
    Map<GroupClient, Future<JsonNode>> calls = new LinkedHashMap<>();
    bodies.forEach((g, body) -> {
      String text = body.toString();
      calls.put(g, fanOut.submit(() -> g.call(text, headers, deadline, timings, phase)));
    });
    return calls;
  }

  private static JsonNode join(Future<JsonNode> call) throws RouteException {
    try {
      return call.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw RouteException.unavailable(-1, "interrupted");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RouteException re) {
        throw re;
      }
      throw new IllegalStateException("a shard group call failed", e.getCause());
    }
  }

  @Override
  public void close() {
    fanOut.shutdownNow();
  }
}
