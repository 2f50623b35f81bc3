package dev.kiln.router;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.FeedbackMerge;
import dev.kiln.search.ShardGroupSearch;
import dev.kiln.search.ShardMerge;
import dev.kiln.search.rewrite.QueryRewriter;
import dev.kiln.search.rewrite.RewriteContext;
import dev.kiln.search.rewrite.RewrittenQuery;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Query rewriting over shard groups, as one server rewrites ({@code Searcher}, {@code
 * SnapshotRewriteContext}): the rewriter runs once, here, and everything it asks of the snapshot is
 * the whole snapshot's answer. Its analysis is a group's ({@code analyze}: every group analyses with the
 * snapshot's analyzer); its first pass is routed — a BM25 leg on every group scored with the summed
 * statistics ({@code again}), joined in the single process's order and cut to the rewriter's depth,
 * the chunks' text fetched ({@code fetch}); its document ratios are the groups' summed document
 * frequencies over the snapshot's chunks ({@code term_stats}). The analyses of the first pass's
 * chunks and the ratios of their terms are asked for in one call each, since a rewriter asks for them
 * term by term.
 */
final class RoutedRewrite implements RewriteContext {
  private static final TypeReference<Map<String, Integer>> COUNTS = new TypeReference<>() {};
  private static final TypeReference<Map<String, long[]>> STATS = new TypeReference<>() {};

  /** A phase failed inside a {@link RewriteContext} call, which cannot throw it: unwrapped by {@link #run}. */
  private static final class Failed extends RuntimeException {
    private final RouteException cause;

    Failed(RouteException cause) {
      super(cause.getMessage(), cause, false, false);
      this.cause = cause;
    }
  }

  private final ObjectMapper json;
  private final ObjectNode request;
  private final FeedbackPasses.Calls calls;
  private final List<GroupClient> answering;
  private final Map<Integer, GroupClient> byShard;
  private final long[] starts;
  private final ShardGroupSearch.Global global;
  private final Map<String, Map<String, Integer>> analysed = new HashMap<>();
  private final Map<String, long[]> stats = new HashMap<>();

  private RoutedRewrite(ObjectMapper json, ObjectNode request, FeedbackPasses.Calls calls,
      List<GroupClient> answering, Map<Integer, GroupClient> byShard, long[] starts, ShardGroupSearch.Global global) {
    this.json = json;
    this.request = request;
    this.calls = calls;
    this.answering = answering;
    this.byShard = byShard;
    this.starts = starts;
    this.global = global;
    stats.putAll(global.terms());
  }

  /**
   * The rewritten query and the statistics its BM25 terms are scored with ({@code global} with every
   * term of the rewritten query summed over the groups).
   */
  record Rewritten(RewrittenQuery query, ShardGroupSearch.Global global) {}

  static Rewritten run(QueryRewriter rewriter, String query, ObjectMapper json, ObjectNode request,
      FeedbackPasses.Calls calls, List<GroupClient> answering, Map<Integer, GroupClient> byShard, long[] starts,
      ShardGroupSearch.Global global) throws RouteException {
    RoutedRewrite context = new RoutedRewrite(json, request, calls, answering, byShard, starts, global);
    try {
      RewrittenQuery rewritten = rewriter.rewrite(query, context);
      context.known(rewritten.bm25Terms().keySet());
      Map<String, long[]> more = new LinkedHashMap<>();
      for (String t : rewritten.bm25Terms().keySet()) {
        more.put(t, context.stats.get(t));
      }
      return new Rewritten(rewritten, FeedbackMerge.withTerms(global, more));
    } catch (Failed e) {
      throw e.cause;
    }
  }

  @Override
  public Map<String, Integer> analyze(String text) {
    Map<String, Integer> known = analysed.get(text);
    if (known == null) {
      analyseAll(List.of(text));
      known = analysed.get(text);
    }
    return known;
  }

  @Override
  public double docRatio(String term) {
    known(List.of(term));
    long[] s = stats.get(term);
    return global.maxDoc() == 0 || s == null ? 0 : s[0] / (double) global.maxDoc();
  }

  @Override
  public List<String> firstPassTexts(String query, int n) {
    try {
      Map<String, Float> weights = new LinkedHashMap<>();
      analyze(query).forEach((t, c) -> weights.put(t, c.floatValue()));
      if (weights.isEmpty()) {
        return List.of();
      }
      known(weights.keySet());
      Map<String, long[]> scored = new LinkedHashMap<>();
      weights.keySet().forEach(t -> scored.put(t, stats.get(t)));
      // The BM25 pass one server's rewrite context runs (the text's terms, each at its count).
      Map<GroupClient, ObjectNode> bodies = new LinkedHashMap<>();
      for (GroupClient g : answering) {
        ObjectNode body = request.deepCopy().put("phase", "again").put("n", n).put("leg", "bm25");
        body.set("global", json.valueToTree(FeedbackMerge.withTerms(global, scored)));
        body.putPOJO("terms", weights);
        bodies.put(g, body);
      }
      List<ShardGroupSearch.Leg> parts = new ArrayList<>();
      for (JsonNode answer : calls.each(bodies).values()) {
        parts.add(json.treeToValue(answer.path("legs").get(0), ShardGroupSearch.Leg.class));
      }
      List<ShardGroupSearch.Hit> top = ShardMerge.join(parts, starts);
      top = top.subList(0, Math.min(n, top.size()));
      List<String> texts = texts(top);
      analyseAll(texts);
      Set<String> terms = new LinkedHashSet<>();
      texts.forEach(t -> terms.addAll(analysed.get(t).keySet()));
      known(terms);
      return texts;
    } catch (RouteException e) {
      throw new Failed(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The stored texts of {@code hits}, in order, fetched from the groups that hold them. */
  private List<String> texts(List<ShardGroupSearch.Hit> hits) throws RouteException {
    Map<GroupClient, List<ShardGroupSearch.Hit>> split = new LinkedHashMap<>();
    for (ShardGroupSearch.Hit h : hits) {
      split.computeIfAbsent(byShard.get(h.shard()), x -> new ArrayList<>()).add(h);
    }
    Map<GroupClient, ObjectNode> bodies = new LinkedHashMap<>();
    split.forEach((g, own) -> {
      ObjectNode body = request.deepCopy().put("phase", "fetch");
      body.set("hits", json.valueToTree(own));
      bodies.put(g, body);
    });
    Map<GroupClient, JsonNode> answers = calls.each(bodies);
    Map<GroupClient, Integer> next = new HashMap<>();
    List<String> out = new ArrayList<>(hits.size());
    for (ShardGroupSearch.Hit h : hits) {
      GroupClient g = byShard.get(h.shard());
      int i = next.merge(g, 1, Integer::sum) - 1;
      // As one server's context reads a chunk: a missing text is an empty one.
      out.add(answers.get(g).path("hits").get(i).path("text").asText(""));
    }
    return out;
  }

  /** Analyses every text not analysed yet, in one call to the first group. */
  private void analyseAll(List<String> texts) {
    List<String> wanted = texts.stream().filter(t -> !analysed.containsKey(t)).distinct().toList();
    if (wanted.isEmpty()) {
      return;
    }
    ObjectNode body = request.deepCopy().put("phase", "analyze");
    ArrayNode list = body.putArray("texts");
    wanted.forEach(list::add);
    try {
      JsonNode answer = calls.each(Map.of(answering.get(0), body)).get(answering.get(0));
      for (int i = 0; i < wanted.size(); i++) {
        analysed.put(wanted.get(i), new LinkedHashMap<>(json.convertValue(answer.path("terms").get(i), COUNTS)));
      }
    } catch (RouteException e) {
      throw new Failed(e);
    }
  }

  /** Sums the statistics of every term not known yet over the groups, in one call each. */
  private void known(Collection<String> terms) {
    List<String> wanted = terms.stream().filter(t -> !stats.containsKey(t)).distinct().toList();
    if (wanted.isEmpty()) {
      return;
    }
    Map<GroupClient, ObjectNode> bodies = new LinkedHashMap<>();
    for (GroupClient g : answering) {
      ObjectNode body = request.deepCopy().put("phase", "term_stats");
      ArrayNode list = body.putArray("terms");
      wanted.forEach(list::add);
      bodies.put(g, body);
    }
    try {
      for (String t : wanted) {
        stats.put(t, new long[2]);
      }
      for (JsonNode answer : calls.each(bodies).values()) {
        Map<String, long[]> part = json.convertValue(answer.path("terms"), STATS);
        part.forEach((t, v) -> {
          long[] acc = stats.get(t);
          acc[0] += v[0];
          acc[1] += v[1];
        });
      }
    } catch (RouteException e) {
      throw new Failed(e);
    }
  }
}
