package dev.kiln.router;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.RelevanceGate;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.ShardGroupSearch;
import dev.kiln.search.ShardMerge;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One snapshots root's shard groups and the phases of one search on them (docs/ARCHITECTURE.md,
 * "Serving beyond one machine"): {@link #prepare} pins a snapshot every group holds and sums the
 * groups' statistics; {@link #finish} runs the legs, hybrid's feedback passes ({@link FeedbackPasses})
 * and the fetch, and merges with the searcher's own classes ({@link ShardMerge}), so that the hits are
 * the ones one server over the root answers. Split in two so that a federating {@link Router} can give
 * every root of one model the same query vector between the halves, as one federated server embeds
 * the query once per model.
 */
final class RootRoute {
  private static final Logger LOG = LoggerFactory.getLogger(RootRoute.class);

  /** The root's label in answers ({@code --root}; empty when the router serves one root) and its weight. */
  final String label;
  final double weight;
  final RouterGroups groups;
  private final RouterConfig config;
  private final ObjectMapper json;
  private final GroupCalls calls;

  RootRoute(String label, double weight, RouterGroups groups, RouterConfig config, ObjectMapper json,
      GroupCalls calls) {
    this.label = label;
    this.weight = weight;
    this.groups = groups;
    this.config = config;
    this.json = json;
    this.calls = calls;
  }

  /**
   * A search after its statistics phase.
   *
   * @param request what every phase carries: the client's request, the pinned snapshot
   * @param k the cut of this root's merge (the client's k; a federated root's depth)
   * @param clientK the k the client asked for
   * @param excluded the caller's API key excludes the filter entirely: no hits, nothing searched
   */
  record Prepared(String pinned, ObjectNode request, List<GroupClient> answering, List<String> missing,
      SearchMode mode, int k, int clientK, boolean excluded, List<ShardGroupSearch.Stats> stats,
      ShardGroupSearch.Global global) {
    /** The model this root's snapshot was embedded with (null when excluded). */
    String model() {
      return stats.isEmpty() ? null : stats.get(0).plan().model();
    }

    ShardGroupSearch.Plan plan() {
      return stats.get(0).plan();
    }

    /** The same search with another query vector: one federated server embeds the query once per model. */
    Prepared withVector(float[] vector) {
      ShardGroupSearch.Global g = global;
      return new Prepared(pinned, request, answering, missing, mode, k, clientK, excluded, stats,
          new ShardGroupSearch.Global(g.terms(), g.docCount(), g.sumTotalTermFreq(), g.sumDocFreq(), g.maxDoc(),
              g.ef(), g.exact(), vector));
    }
  }

  /**
   * The root's hits for a search, merged and gated, the shards no group answered for, and the group
   * each hit came from, by chunk id ({@link #context} asks it for the hit's parent).
   */
  record Routed(List<SearchHit> hits, List<String> missing, Map<String, GroupClient> owners) {}

  /**
   * Pins a snapshot and runs the statistics phase.
   *
   * @param client the client's request ({@code method}, {@code query_string}, {@code body}, and
   *     {@code endpoint}, {@code federated} as the router sets them)
   * @throws RouteException NOT_HELD when no snapshot is common to the groups (the caller learns again
   *     what they hold and retries), CLIENT for the client's error, UNAVAILABLE when a group is down
   */
  Prepared prepare(ObjectNode client, Map<String, String> headers, long deadline, RouteTimings timings)
      throws RouteException, IOException {
    List<GroupClient> live = config.allowPartial() ? groups.live() : groups.all();
    String pinned = Topology.pin(live);
    if (pinned == null) {
      throw RouteException.noPin("no snapshot is held by every group" + (label.isEmpty() ? "" : " of root " + label));
    }
    ObjectNode request = client.deepCopy().put("snapshot", pinned);
    List<GroupClient> answering = new ArrayList<>(live);
    List<String> missing = new ArrayList<>();
    for (GroupClient g : groups.all()) {
      if (!live.contains(g)) {
        missing.add(g.shards());
      }
    }
    long started = System.nanoTime();
    Map<GroupClient, JsonNode> stats = calls.phase("stats", request, answering, headers, deadline, missing, timings);
    timings.since("stats", started);
    started = System.nanoTime();
    if (answering.isEmpty()) {
      throw RouteException.unavailable(-1, "no group answered");
    }
    JsonNode first = stats.get(answering.get(0));
    SearchMode mode = SearchMode.valueOf(first.path("mode").asText());
    int k = first.path("k").asInt();
    int clientK = first.path("client_k").asInt(k);
    if (first.path("excluded").asBoolean()) {
      return new Prepared(pinned, request, answering, missing, mode, k, clientK, true, List.of(), null);
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
    ShardGroupSearch.Global global = ShardGroupSearch.sum(parsed, first.path("filtered").asBoolean());
    timings.since("sum", started);
    return new Prepared(pinned, request, answering, missing, mode, k, clientK, false, parsed, global);
  }

  /**
   * The legs, feedback passes and fetch of a prepared search.
   *
   * @param calibrateAll give every hit its calibrated score, as a federated server's roots do for
   *     their merge; otherwise only where a relevance gate needs it
   */
  Routed finish(Prepared p, boolean calibrateAll, Map<String, String> headers, long deadline, RouteTimings timings)
      throws RouteException, IOException {
    if (p.excluded()) {
      return new Routed(List.of(), p.missing(), Map.of());
    }
    List<GroupClient> answering = p.answering();
    List<String> missing = p.missing();
    ShardGroupSearch.Global global = p.global();
    ObjectNode legsRequest = p.request().deepCopy().put("phase", "legs");
    legsRequest.set("global", json.valueToTree(global));
    long started = System.nanoTime();
    Map<GroupClient, JsonNode> legs = calls.phase("legs", legsRequest, answering, headers, deadline, missing,
        timings);
    timings.since("legs", started);
    started = System.nanoTime();
    List<List<ShardGroupSearch.Leg>> perGroup = new ArrayList<>();
    // Only the statistics phase drops groups, so answering and stats stay aligned.
    List<ShardGroupSearch.Stats> answered = p.stats();
    for (GroupClient g : answering) {
      List<ShardGroupSearch.Leg> l = new ArrayList<>();
      for (JsonNode n : legs.get(g).path("legs")) {
        l.add(json.treeToValue(n, ShardGroupSearch.Leg.class));
      }
      perGroup.add(l);
    }
    long[] starts = ShardMerge.shardStarts(answered, !missing.isEmpty());
    ShardGroupSearch.Plan plan = p.plan();
    Map<Integer, GroupClient> byShard = new HashMap<>();
    for (int i = 0; i < answering.size(); i++) {
      for (int shard : answered.get(i).shards()) {
        byShard.put(shard, answering.get(i));
      }
    }
    SearchMode mode = p.mode();
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
      FeedbackPasses passes = new FeedbackPasses(json, p.request(),
          bodies -> calls.each(bodies, headers, deadline, timings), answering, byShard, starts, plan);
      // The first pass's join; "merge" below is the fusion after the feedback passes, one entry each.
      timings.since("join", started);
      started = System.nanoTime();
      merged = ShardMerge.fuse(passes.run(firstPass.get(0), firstPass.get(1), global, p.k()), starts, p.k(),
          plan.toFusion());
      timings.since("feedback", started);
      started = System.nanoTime();
    } else {
      merged = ShardMerge.merge(perGroup, starts, p.k(), plan.toFusion());
    }
    // Phase 3: fetch the kept hits from the groups that hold them.
    Map<GroupClient, List<ShardMerge.Merged>> wanted = new LinkedHashMap<>();
    for (ShardMerge.Merged m : merged) {
      wanted.computeIfAbsent(byShard.get(m.shard()), x -> new ArrayList<>()).add(m);
    }
    RelevanceGate gate = plan.gate();
    boolean scores = calibrateAll || !gate.isOff();
    // A gate compares calibrated scores: dense scores are; other modes' hits the groups calibrate
    // against the query's embedding as they fetch them.
    boolean calibrate = scores && mode != SearchMode.DENSE;
    Map<GroupClient, ObjectNode> fetches = new LinkedHashMap<>();
    wanted.forEach((g, ms) -> {
      ObjectNode f = p.request().deepCopy().put("phase", "fetch");
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
    Map<GroupClient, JsonNode> fetched = calls.each(fetches, headers, deadline, timings);
    timings.since("fetch", started);
    Map<ShardMerge.Merged, SearchHit> hitOf = new HashMap<>();
    for (Map.Entry<GroupClient, List<ShardMerge.Merged>> e : wanted.entrySet()) {
      JsonNode hits = fetched.get(e.getKey()).path("hits");
      for (int i = 0; i < e.getValue().size(); i++) {
        hitOf.put(e.getValue().get(i), json.treeToValue(hits.get(i), SearchHit.class));
      }
    }
    List<SearchHit> results = new ArrayList<>(merged.size());
    Map<String, GroupClient> owners = new HashMap<>();
    for (ShardMerge.Merged m : merged) {
      SearchHit h = hitOf.get(m);
      results.add(scores && mode == SearchMode.DENSE ? h.withRelevance(h.score()) : h);
      owners.put(h.chunkId(), byShard.get(m.shard()));
    }
    return new Routed(gate.apply(results), missing, owners);
  }

  /**
   * {@code /context}: the searched hits packed into a context by one group, with the snapshot's own
   * tokenizer. A group holds, and may tie to the caller's rights, only its own shards' parents
   * ({@code HitScope.parents}), so the packing group — the one owning the most hits — is sent the
   * parents of the other groups' hits, which each owning group resolves first (phase {@code parents},
   * narrowed by the client's key as every phase is). Without that the other groups' hits would stand
   * for themselves where one server gives them their parents.
   *
   * @param owners the group each hit came from, by chunk id ({@link Routed#owners})
   */
  JsonNode context(Prepared p, SearchResponse response, Map<String, GroupClient> owners, Map<String, String> headers,
      long deadline, RouteTimings timings) throws RouteException {
    Map<GroupClient, List<String>> byGroup = new LinkedHashMap<>();
    for (SearchHit h : response.results()) {
      byGroup.computeIfAbsent(owners.get(h.chunkId()), x -> new ArrayList<>()).add(h.chunkId());
    }
    GroupClient packer = p.answering().get(0);
    for (Map.Entry<GroupClient, List<String>> e : byGroup.entrySet()) {
      if (e.getValue().size() > byGroup.getOrDefault(packer, List.of()).size()) {
        packer = e.getKey();
      }
    }
    Map<GroupClient, ObjectNode> asks = new LinkedHashMap<>();
    for (Map.Entry<GroupClient, List<String>> e : byGroup.entrySet()) {
      if (e.getKey() != packer) {
        ObjectNode ask = p.request().deepCopy().put("phase", "parents");
        e.getValue().forEach(ask.putArray("chunk_ids")::add);
        asks.put(e.getKey(), ask);
      }
    }
    long started = System.nanoTime();
    ObjectNode body = p.request().deepCopy().put("phase", "context");
    body.set("response", json.valueToTree(response));
    if (!asks.isEmpty()) {
      var parents = body.putArray("parents");
      calls.each(asks, headers, deadline, timings).values().forEach(a -> a.path("parents").forEach(parents::add));
      timings.since("parents", started);
      started = System.nanoTime();
    }
    JsonNode out = packer.call(body.toString(), headers, deadline, timings, "context");
    timings.since("context", started);
    LOG.debug("context of {} hits packed by group {}, parents asked of {} other groups", response.results().size(),
        packer.index(), asks.size());
    return out;
  }
}
