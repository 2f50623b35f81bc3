package dev.kiln.search.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.RelevanceGate;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.Searcher;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Why each hit ranks where it does, for the web page: the search as the service runs it but with the
 * relevance gate left out ({@link Searcher#searchUngated}), then every hit with its score in each leg
 * run alone on the query text (BM25, dense: its rank and score there, or null when it is not in the
 * leg's top {@link #legDepth}), its fused score (hybrid), its reranker score (when one is set), and
 * what the gate ({@link RelevanceGate#refusals}, the gate's own decision) did with it and why.
 *
 * <p>The legs are run again here, on the query as typed: a rewriting option (RM3, feedback) changes
 * what hybrid's own legs saw, which the fused score reflects and these leg scores do not.
 */
final class Explainer {
  /** At least this deep in each leg: the default candidate depth, so a fused hit is rarely missing. */
  static final int MIN_LEG_DEPTH = 100;

  private final ObjectMapper json = new ObjectMapper();

  /** How deep each leg is looked into for a request of {@code k} hits. */
  static int legDepth(int k) {
    return Math.min(SearchRequest.MAX_K, Math.max(k, MIN_LEG_DEPTH));
  }

  /**
   * The explanation of {@code request} (its filter already narrowed to the caller's key) on {@code searcher}.
   *
   * @param shown the ungated response as the client may see it ({@link SourceUris#show})
   */
  ObjectNode explain(Searcher searcher, SearchRequest request, UnaryOperator<SearchResponse> shown) {
    SearchResponse ungated = shown.apply(searcher.searchUngated(request));
    List<SearchHit> hits = ungated.results();
    RelevanceGate gate = searcher.gate(request);
    List<String> refusals = gate.refusals(hits);
    int depth = legDepth(request.k());
    ObjectNode out = json.createObjectNode();
    out.put("snapshot", searcher.snapshotId());
    out.put("mode", request.mode().label());
    out.put("k", request.k());
    out.put("leg_depth", depth);
    out.put("reranked", searcher.reranks(request));
    ObjectNode gateNode = out.putObject("gate");
    gateNode.put("on", !gate.isOff());
    putNumber(gateNode, "min_score", gate.minScore());
    putNumber(gateNode, "max_drop", gate.maxDrop());
    Map<String, Leg> bm25 = new HashMap<>();
    Map<String, Leg> dense = new HashMap<>();
    ObjectNode legs = out.putObject("legs");
    legs.set("bm25", runLeg(bm25, () -> searcher.bm25(request.query(), depth, request.filter())));
    legs.set("dense", runLeg(dense,
        () -> searcher.dense(searcher.embedQuery(request.query()), depth, request.filter())));
    ArrayNode results = out.putArray("results");
    int kept = 0;
    for (int i = 0; i < hits.size(); i++) {
      SearchHit h = hits.get(i);
      ObjectNode hit = results.addObject();
      hit.put("rank", i + 1);
      hit.put("chunk_id", h.chunkId());
      hit.put("doc_id", h.docId());
      hit.put("title", h.title());
      hit.put("breadcrumb", h.metadata().get("breadcrumb"));
      hit.put("text", h.text());
      hit.set("metadata", json.valueToTree(h.metadata()));
      hit.put("score", h.score());
      ObjectNode scores = hit.putObject("scores");
      scores.set("bm25", leg(bm25.get(h.chunkId())));
      scores.set("dense", leg(dense.get(h.chunkId())));
      if (request.mode() == SearchMode.HYBRID) {
        scores.put("fused", h.score());
      } else {
        scores.putNull("fused");
      }
      if (searcher.reranks(request) && h.relevance() != null) {
        scores.put("rerank", h.relevance());
      } else {
        scores.putNull("rerank");
      }
      if (h.relevance() != null) {
        scores.put("relevance", h.relevance());
      }
      ObjectNode verdict = hit.putObject("gate");
      String refusal = refusals.get(i);
      verdict.put("kept", refusal == null);
      verdict.put("reason", refusal != null ? refusal
          : gate.isOff() ? "no gate is set (--min-score, --max-drop): every hit is kept"
          : "calibrated score " + (h.relevance() != null ? h.relevance() : h.score()) + " passes the gate");
      kept += refusal == null ? 1 : 0;
    }
    out.put("kept", kept);
    if (kept == 0) {
      out.put("reason", SearchResponse.NO_RELEVANT_CONTEXT);
    }
    return out;
  }

  private record Leg(int rank, double score) {}

  /** Runs one leg into {@code ranks}; a leg the snapshot cannot run (no vectors) says why instead. */
  private ObjectNode runLeg(Map<String, Leg> ranks, Supplier<List<SearchHit>> leg) {
    ObjectNode node = json.createObjectNode();
    try {
      List<SearchHit> hits = leg.get();
      for (int i = 0; i < hits.size(); i++) {
        ranks.putIfAbsent(hits.get(i).chunkId(), new Leg(i + 1, hits.get(i).score()));
      }
      node.put("ran", true).put("hits", hits.size());
    } catch (IllegalArgumentException | IllegalStateException e) {
      // What the snapshot cannot do (no vectors, a filter it did not index): the client's to know.
      node.put("ran", false).put("error", QueryParams.clientMessage(e));
    }
    return node;
  }

  private ObjectNode leg(Leg leg) {
    return leg == null ? null : json.createObjectNode().put("rank", leg.rank()).put("score", leg.score());
  }

  private static void putNumber(ObjectNode node, String name, double value) {
    if (Double.isNaN(value)) {
      node.putNull(name);
    } else {
      node.put(name, value);
    }
  }
}
