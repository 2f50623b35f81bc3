package dev.kiln.router;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.RelevanceGate;
import dev.kiln.search.RerankStage;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.SettingException;
import dev.kiln.search.ShardGroupSearch;
import dev.kiln.search.ShardGroupStats;
import dev.kiln.search.ShardMerge;
import dev.kiln.search.rerank.Reranker;
import dev.kiln.search.rewrite.QueryRewriter;
import dev.kiln.search.rewrite.QueryRewriters;
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
 * groups' statistics; {@link #finish} runs the query rewriter ({@link RoutedRewrite}), the legs,
 * hybrid's feedback passes ({@link FeedbackPasses}), the fetch and the reranker, and merges with the
 * searcher's own classes ({@link ShardMerge}), so that the hits are the ones one server over the root
 * answers. Split in two so that a federating {@link Router} can give
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
  /** The router's cross-encoder ({@code --rerank-model}), or null. */
  private final Reranker reranker;

  RootRoute(String label, double weight, RouterGroups groups, RouterConfig config, ObjectMapper json,
      GroupCalls calls, Reranker reranker) {
    this.reranker = reranker;
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
   * @param rerank the stage that reranks the merged candidates (the router's reranker at the request's
   *     depth), or null; with it, {@code k} is the candidates it rescores and {@code cut} what it keeps
   * @param cut the hits the root answers: {@code k} without a reranker
   * @param query the client's text, which the reranker reads
   */
  record Prepared(String pinned, ObjectNode request, List<GroupClient> answering, List<String> missing,
      SearchMode mode, int k, int clientK, boolean excluded, List<ShardGroupSearch.Stats> stats,
      ShardGroupSearch.Global global, RerankStage rerank, int cut, String query) {
    /** The model this root's snapshot was embedded with (null when excluded). */
    String model() {
      return stats.isEmpty() ? null : stats.get(0).plan().model();
    }

    /** The groups' own plan, as their {@code describe} gives it: what a federating router merges roots with. */
    ShardGroupSearch.Plan plan() {
      return stats.get(0).plan();
    }

    /** The plan this request searches with: the groups' with the request's retrieval options over it. */
    ShardGroupSearch.Plan effective() {
      return stats.get(0).effectivePlan();
    }

    /** The same search with another query vector: one federated server embeds the query once per model. */
    Prepared withVector(float[] vector) {
      ShardGroupSearch.Global g = global;
      return new Prepared(pinned, request, answering, missing, mode, k, clientK, excluded, stats,
          new ShardGroupSearch.Global(g.terms(), g.docCount(), g.sumTotalTermFreq(), g.sumDocFreq(), g.maxDoc(),
              g.ef(), g.exact(), vector), rerank, cut, query);
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
      return new Prepared(pinned, request, answering, missing, mode, k, clientK, true, List.of(), null, null, k, "");
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
    ShardGroupSearch.Global global = ShardGroupStats.sum(parsed, first.path("filtered").asBoolean());
    RerankStage rerank = rerankStage(first, parsed.get(0).effectivePlan());
    int n = rerank == null ? k : rerank.candidates(k);
    if (n != k) {
      // Every later phase retrieves the candidates the reranker rescores, as one server's retrieval does.
      request.put("depth", n);
    }
    timings.since("sum", started);
    return new Prepared(pinned, request, answering, missing, mode, n, clientK, false, parsed, global, rerank, k,
        first.path("query").asText());
  }

  /**
   * The rerank stage one server runs for this request: its reranker (the router's) unless the request
   * says {@code rerank=false}, at the request's depth or the groups' {@code --rerank-depth}; a request
   * asking for it where there is no reranker is one server's 400.
   */
  private RerankStage rerankStage(JsonNode stats, ShardGroupSearch.Plan plan) throws RouteException {
    JsonNode asked = stats.path("rerank");
    if (reranker == null) {
      if (asked.asBoolean(false)) {
        throw RouteException.client(400, json.createObjectNode().put("error",
            "rerank cannot be switched on: this server has no reranker model (--rerank-model)"));
      }
      return null;
    }
    return asked.isBoolean() && !asked.asBoolean() ? null : new RerankStage(reranker, plan.rerankDepth());
  }

  /**
   * The query rewriter this request runs, by the name the groups' plan gives it ({@code --prf}'s
   * {@code rm3}, {@code --rewriter}, the request's {@code rewriter}), or null for none.
   *
   * @throws RouteException a 400 for a rewriter this router cannot run as one server does
   */
  private QueryRewriter rewriter(ShardGroupSearch.Plan plan) throws RouteException {
    String name = plan.rewriter();
    if (name == null || name.equals("none")) {
      return null;
    }
    QueryRewriter rewriter;
    try {
      rewriter = QueryRewriters.named(name);
    } catch (SettingException e) {
      throw RouteException.client(400, json.createObjectNode().put("error", e.getMessage()
          + " (on the router's classpath: the router runs the groups' rewriter)"));
    }
    if (rewriter.rewritesDenseText()) {
      // Its dense text would be embedded by a group and searched by all: not split yet.
      throw RouteException.client(400, json.createObjectNode().put("error", "rewriter " + name
          + " rewrites the text the dense side embeds, which `kiln route` does not split yet: use a rewriter of"
          + " BM25 terms (rm3, keywords) or search one `kiln serve`"));
    }
    return rewriter;
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
    // Only the statistics phase drops groups, so answering and stats stay aligned.
    List<ShardGroupSearch.Stats> answered = p.stats();
    long[] starts = ShardMerge.shardStarts(answered, !missing.isEmpty());
    ShardGroupSearch.Plan plan = p.effective();
    Map<Integer, GroupClient> byShard = new HashMap<>();
    for (int i = 0; i < answering.size(); i++) {
      for (int shard : answered.get(i).shards()) {
        byShard.put(shard, answering.get(i));
      }
    }
    SearchMode mode = p.mode();
    ObjectNode legsRequest = p.request().deepCopy().put("phase", "legs");
    QueryRewriter rewriter = rewriter(plan);
    long started = System.nanoTime();
    if (rewriter != null && mode != SearchMode.DENSE) {
      // As one server: a rewriter that reweighs BM25 terms runs for the modes that read terms, once, here.
      RoutedRewrite.Rewritten rewritten = RoutedRewrite.run(rewriter, p.query(), json, p.request(),
          bodies -> calls.each(bodies, headers, deadline, timings), answering, byShard, starts, global);
      global = rewritten.global();
      legsRequest.putPOJO("bm25_terms", rewritten.query().bm25Terms());
      timings.since("rewrite", started);
      started = System.nanoTime();
    }
    legsRequest.set("global", json.valueToTree(global));
    Map<GroupClient, JsonNode> legs = calls.phase("legs", legsRequest, answering, headers, deadline, missing,
        timings);
    timings.since("legs", started);
    started = System.nanoTime();
    List<List<ShardGroupSearch.Leg>> perGroup = new ArrayList<>();
    for (GroupClient g : answering) {
      List<ShardGroupSearch.Leg> l = new ArrayList<>();
      for (JsonNode n : legs.get(g).path("legs")) {
        l.add(json.treeToValue(n, ShardGroupSearch.Leg.class));
      }
      perGroup.add(l);
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
    // With a reranker its score is the calibrated one (RerankStage), as in one server: nothing to calibrate.
    boolean scores = p.rerank() == null && (calibrateAll || !gate.isOff());
    // A gate compares calibrated scores: dense scores are; other modes' hits the groups calibrate
    // against the query's embedding as they fetch them.
    boolean calibrate = scores && mode != SearchMode.DENSE;
    Map<GroupClient, ObjectNode> fetches = new LinkedHashMap<>();
    float[] vector = global.vector();
    wanted.forEach((g, ms) -> {
      ObjectNode f = p.request().deepCopy().put("phase", "fetch");
      if (calibrate) {
        f.putPOJO("calibrate", vector);
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
    if (p.rerank() != null) {
      started = System.nanoTime();
      results = p.rerank().apply(p.query(), results, p.cut());
      timings.since("rerank", started);
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
