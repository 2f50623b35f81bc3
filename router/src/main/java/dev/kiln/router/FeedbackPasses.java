package dev.kiln.router;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.FeedbackMerge;
import dev.kiln.search.ShardGroupFeedback;
import dev.kiln.search.ShardGroupSearch;
import dev.kiln.search.ShardMerge;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.FeedbackScope;
import dev.kiln.search.rewrite.LexicalFeedback;
import dev.kiln.search.rewrite.RewrittenQuery;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Hybrid search's feedback passes over shard groups, as one process runs them ({@code
 * HybridRetriever}, {@code Retrieval#denseWithFeedback}): on the merged first pass, the router
 * gathers dense feedback's votes ({@code chunks}), moves the query vector and has the groups re-score
 * their candidates ({@code rescore}) or search again ({@code again}); then it fuses the top of the
 * new lists, reads and analyses those chunks ({@code chunks}), sums the expansion terms' statistics
 * ({@code term_stats}), expands the query with RM3 and has the groups run the second BM25 pass
 * ({@code again}). The choices and the arithmetic are the searcher's own ({@link FeedbackMerge}).
 */
final class FeedbackPasses {
  /** Dense feedback's chunks are read a few at a time: their document ids decide how many are needed. */
  private static final int VOTE_BATCH = 8;
  private static final TypeReference<Map<String, Integer>> COUNTS = new TypeReference<>() {};
  private static final TypeReference<Map<String, long[]>> STATS = new TypeReference<>() {};

  /** One phase on the groups given, each with its own body; their answers. */
  interface Calls {
    Map<GroupClient, JsonNode> each(Map<GroupClient, ObjectNode> bodies) throws RouteException;
  }

  private final ObjectMapper json;
  private final ObjectNode request;
  private final Calls calls;
  private final List<GroupClient> answering;
  private final Map<Integer, GroupClient> byShard;
  private final long[] starts;
  private final ShardGroupSearch.Plan plan;

  /**
   * @param request the client's search as the groups read it (snapshot, method, query string, body)
   * @param answering the groups answering, in the order of the statistics phase
   * @param byShard which of them serves each shard
   */
  FeedbackPasses(ObjectMapper json, ObjectNode request, Calls calls, List<GroupClient> answering,
      Map<Integer, GroupClient> byShard, long[] starts, ShardGroupSearch.Plan plan) {
    this.json = json;
    this.request = request;
    this.calls = calls;
    this.answering = answering;
    this.byShard = byShard;
    this.starts = starts;
    this.plan = plan;
  }

  /** Whether hybrid search runs any feedback pass with this plan. */
  static boolean needed(ShardGroupSearch.Plan plan) {
    return plan.denseFeedback().enabled() || plan.lexicalFeedback().enabled();
  }

  /**
   * The legs after feedback, from the merged first pass's {@code dense} and {@code bm25} lists.
   *
   * @param k the request's k
   */
  List<List<ShardGroupSearch.Hit>> run(List<ShardGroupSearch.Hit> dense, List<ShardGroupSearch.Hit> bm25,
      ShardGroupSearch.Global global, int k) throws RouteException, IOException {
    FeedbackScope scope = plan.feedbackScope();
    DenseFeedback df = plan.denseFeedback();
    if (df.enabled()) {
      float[] expanded = df.expand(global.vector(), votes(dense, df.docs()));
      dense = scope == FeedbackScope.CANDIDATES ? rescore(dense, expanded)
          : again(body -> body.put("leg", "dense").putPOJO("vector", expanded), global,
              Math.max(k, plan.denseDepth()), null);
    }
    LexicalFeedback lf = plan.lexicalFeedback();
    if (lf.enabled()) {
      List<ShardMerge.Merged> top = ShardMerge.fuse(List.of(dense, bm25), starts, lf.docs(), plan.toFusion());
      List<ShardGroupSearch.Hit> wanted = new ArrayList<>(top.size());
      for (ShardMerge.Merged m : top) {
        wanted.add(new ShardGroupSearch.Hit(m.shard(), m.doc(), m.score()));
      }
      Analysed analysed = analyse(wanted);
      Set<String> candidates = FeedbackMerge.expansionTerms(lf, analysed.query(), analysed.chunks());
      Map<String, long[]> stats = termStats(candidates);
      RewrittenQuery expanded = FeedbackMerge.expand(lf, analysed.query(), analysed.chunks(),
          FeedbackMerge.docRatio(stats, global.maxDoc()));
      List<ShardGroupSearch.Hit> within = null;
      if (scope == FeedbackScope.CANDIDATES) {
        // Every doc the legs found, once each: the candidates the second pass re-scores.
        Map<Long, ShardGroupSearch.Hit> union = new LinkedHashMap<>();
        for (List<ShardGroupSearch.Hit> list : List.of(dense, bm25)) {
          for (ShardGroupSearch.Hit h : list) {
            union.putIfAbsent(starts[h.shard()] + h.doc(), h);
          }
        }
        within = new ArrayList<>(union.values());
      }
      bm25 = again(body -> body.put("leg", "bm25").putPOJO("terms", expanded.bm25Terms()),
          FeedbackMerge.withTerms(global, stats), Math.max(k, plan.bm25Depth()), within);
    }
    return List.of(dense, bm25);
  }

  /** Dense feedback's vectors, read in the first pass's order until enough documents voted. */
  private List<float[]> votes(List<ShardGroupSearch.Hit> dense, int docs) throws RouteException, IOException {
    FeedbackMerge.Votes votes = new FeedbackMerge.Votes(docs);
    for (int at = 0; at < dense.size() && !votes.done(); at += VOTE_BATCH) {
      List<ShardGroupSearch.Hit> batch = dense.subList(at, Math.min(dense.size(), at + VOTE_BATCH));
      for (ShardGroupFeedback.Chunk c : chunks(batch, true, false).chunks()) {
        votes.add(c);
      }
    }
    return votes.vectors();
  }

  private record Read(List<ShardGroupFeedback.Chunk> chunks, Map<String, Integer> query) {}

  private record Analysed(List<Map<String, Integer>> chunks, Map<String, Integer> query) {}

  private Analysed analyse(List<ShardGroupSearch.Hit> wanted) throws RouteException, IOException {
    Read read = chunks(wanted, false, true);
    List<Map<String, Integer>> analysed = new ArrayList<>(read.chunks().size());
    for (ShardGroupFeedback.Chunk c : read.chunks()) {
      analysed.add(c.terms());
    }
    return new Analysed(analysed, read.query());
  }

  /**
   * The chunks of {@code hits}, in order, read by the groups that hold them; the first answering
   * group is always asked, so that the query's own analysis comes back even for no hits.
   */
  private Read chunks(List<ShardGroupSearch.Hit> hits, boolean vectors, boolean terms)
      throws RouteException, IOException {
    Map<GroupClient, List<ShardGroupSearch.Hit>> split = split(hits);
    split.putIfAbsent(answering.get(0), new ArrayList<>());
    Map<GroupClient, ObjectNode> bodies = new LinkedHashMap<>();
    split.forEach((g, own) -> {
      ObjectNode body = body("chunks", own);
      body.put("vectors", vectors).put("terms", terms);
      bodies.put(g, body);
    });
    Map<GroupClient, JsonNode> answers = calls.each(bodies);
    Map<GroupClient, Integer> next = new LinkedHashMap<>();
    List<ShardGroupFeedback.Chunk> out = new ArrayList<>(hits.size());
    for (ShardGroupSearch.Hit h : hits) {
      GroupClient g = byShard.get(h.shard());
      int i = next.merge(g, 1, Integer::sum) - 1;
      out.add(json.treeToValue(answers.get(g).path("chunks").get(i), ShardGroupFeedback.Chunk.class));
    }
    Map<String, Integer> query = json.convertValue(answers.get(answering.get(0)).path("query_terms"), COUNTS);
    return new Read(out, query);
  }

  /** The dense first pass re-scored by its groups against {@code vector}, in the single process's order. */
  private List<ShardGroupSearch.Hit> rescore(List<ShardGroupSearch.Hit> dense, float[] vector)
      throws RouteException {
    Map<GroupClient, List<ShardGroupSearch.Hit>> split = split(dense);
    Map<GroupClient, ObjectNode> bodies = new LinkedHashMap<>();
    split.forEach((g, own) -> bodies.put(g, body("rescore", own).putPOJO("vector", vector)));
    Map<GroupClient, JsonNode> answers = calls.each(bodies);
    Map<GroupClient, Integer> next = new LinkedHashMap<>();
    double[] scores = new double[dense.size()];
    for (int i = 0; i < dense.size(); i++) {
      GroupClient g = byShard.get(dense.get(i).shard());
      int at = next.merge(g, 1, Integer::sum) - 1;
      scores[i] = answers.get(g).path("scores").get(at).floatValue();
    }
    return FeedbackMerge.rescored(dense, scores, starts);
  }

  /** The whole snapshot's [docFreq, totalTermFreq] of {@code terms}, summed over the groups. */
  private Map<String, long[]> termStats(Set<String> terms) throws RouteException, IOException {
    if (terms.isEmpty()) {
      return Map.of();
    }
    Map<GroupClient, ObjectNode> bodies = new LinkedHashMap<>();
    for (GroupClient g : answering) {
      ObjectNode body = request.deepCopy().put("phase", "term_stats");
      ArrayNode list = body.putArray("terms");
      terms.forEach(list::add);
      bodies.put(g, body);
    }
    Map<String, long[]> sum = new LinkedHashMap<>();
    for (JsonNode answer : calls.each(bodies).values()) {
      Map<String, long[]> part = json.convertValue(answer.path("terms"), STATS);
      part.forEach((t, v) -> {
        long[] acc = sum.computeIfAbsent(t, x -> new long[2]);
        acc[0] += v[0];
        acc[1] += v[1];
      });
    }
    return sum;
  }

  private interface LegBody {
    void fill(ObjectNode body);
  }

  /**
   * A second pass's leg on every answering group, joined; {@code within}: the first-pass candidates it
   * is limited to (each group gets its own), or null for the whole snapshot.
   */
  private List<ShardGroupSearch.Hit> again(LegBody leg, ShardGroupSearch.Global global, int n,
      List<ShardGroupSearch.Hit> within) throws RouteException, IOException {
    Map<GroupClient, List<ShardGroupSearch.Hit>> split = within == null ? Map.of() : split(within);
    Map<GroupClient, ObjectNode> bodies = new LinkedHashMap<>();
    for (GroupClient g : answering) {
      ObjectNode body = request.deepCopy().put("phase", "again").put("n", n);
      body.set("global", json.valueToTree(global));
      leg.fill(body);
      if (within != null) {
        body.set("within", json.valueToTree(split.getOrDefault(g, List.of())));
      }
      bodies.put(g, body);
    }
    List<ShardGroupSearch.Leg> parts = new ArrayList<>();
    for (JsonNode answer : calls.each(bodies).values()) {
      parts.add(json.treeToValue(answer.path("legs").get(0), ShardGroupSearch.Leg.class));
    }
    return ShardMerge.join(parts, starts);
  }

  private Map<GroupClient, List<ShardGroupSearch.Hit>> split(List<ShardGroupSearch.Hit> hits) {
    Map<GroupClient, List<ShardGroupSearch.Hit>> out = new LinkedHashMap<>();
    for (ShardGroupSearch.Hit h : hits) {
      out.computeIfAbsent(byShard.get(h.shard()), x -> new ArrayList<>()).add(h);
    }
    return out;
  }

  private ObjectNode body(String phase, List<ShardGroupSearch.Hit> hits) {
    ObjectNode body = request.deepCopy().put("phase", phase);
    body.set("hits", json.valueToTree(hits));
    return body;
  }
}
