package dev.kiln.search.http;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.Searcher;
import dev.kiln.search.ShardGroupFeedback;
import dev.kiln.search.ShardGroupSearch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The phases of {@code /internal/group} that split hybrid search's feedback passes ({@link
 * ShardGroupFeedback}; docs/FORMATS.md, "Shard group protocol", version 2): {@code chunks}, {@code
 * rescore}, {@code term_stats} and {@code again}, and query rewriting's {@code analyze} (version 6: the
 * router's rewriter reads texts with the snapshot's analysis). The router sends each group only hits it
 * serves, and only hits its legs found: any other is refused ({@link GroupScope}).
 */
final class GroupFeedbackPhases {
  private static final TypeReference<LinkedHashMap<String, Float>> WEIGHTS = new TypeReference<>() {};

  private final ObjectMapper json;

  GroupFeedbackPhases(ObjectMapper json) {
    this.json = json;
  }

  /** The answer to {@code phase} for the client's {@code request} (parsed and narrowed by its key). */
  ObjectNode answer(String phase, JsonNode node, Searcher searcher, SearchRequest request) throws IOException {
    ObjectNode out = json.createObjectNode();
    switch (phase) {
      case "chunks" -> {
        out.putPOJO("chunks", ShardGroupFeedback.chunks(searcher, hits(node.path("hits"), searcher, request),
            node.path("vectors").asBoolean(), node.path("terms").asBoolean()));
        out.putPOJO("query_terms", ShardGroupFeedback.queryTerms(searcher, request.query()));
      }
      case "rescore" -> out.putPOJO("scores", ShardGroupFeedback.rescore(searcher,
          hits(node.path("hits"), searcher, request),
          vector(node)));
      case "analyze" -> {
        List<String> texts = new ArrayList<>();
        node.path("texts").forEach(t -> texts.add(t.asText()));
        out.putPOJO("terms", ShardGroupFeedback.analyze(searcher, texts));
      }
      case "term_stats" -> {
        List<String> terms = new ArrayList<>();
        node.path("terms").forEach(t -> terms.add(t.asText()));
        out.putPOJO("terms", ShardGroupFeedback.termStats(searcher, terms));
      }
      case "again" -> {
        ShardGroupSearch.Global global = required(node, "global", ShardGroupSearch.Global.class);
        int n = node.path("n").asInt(0);
        if (n < 1) {
          throw new BadRequest("'n' must be >= 1: the second pass's depth");
        }
        ShardGroupSearch.Leg leg = switch (node.path("leg").asText("")) {
          case "dense" -> ShardGroupFeedback.dense(searcher, vector(node), request.filter(), n, global);
          case "bm25" -> ShardGroupFeedback.bm25(searcher, json.convertValue(node.path("terms"), WEIGHTS),
              request.filter(), n, global,
              node.hasNonNull("within") ? hits(node.get("within"), searcher, request) : null);
          default -> throw new BadRequest("'leg' must be dense or bm25");
        };
        out.putPOJO("legs", List.of(leg));
      }
      default -> throw new IllegalArgumentException("not a feedback phase: " + phase);
    }
    return out;
  }

  private float[] vector(JsonNode node) throws IOException {
    return required(node, "vector", float[].class);
  }

  private <T> T required(JsonNode node, String field, Class<T> type) throws IOException {
    if (!node.hasNonNull(field)) {
      throw new BadRequest("'" + field + "' is required in this phase");
    }
    return json.treeToValue(node.get(field), type);
  }

  /** The hit references of {@code array}, each checked against the request's narrowed filter ({@link GroupScope}). */
  private List<ShardGroupSearch.Hit> hits(JsonNode array, Searcher searcher, SearchRequest request)
      throws IOException {
    List<ShardGroupSearch.Hit> out = new ArrayList<>();
    for (JsonNode h : array) {
      out.add(json.treeToValue(h, ShardGroupSearch.Hit.class));
    }
    return GroupScope.checked(searcher, out, request.filter());
  }
}
