package dev.kiln.eval;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kiln.search.SearchMode;

/**
 * Mean metrics of one evaluation run. Its JSON keys are a published format (scripts compare runs
 * by them), so they are fixed here rather than derived from the component names.
 *
 * @param snapshot the snapshot that was evaluated
 * @param mode the search mode
 * @param queries how many queries were evaluated (judged queries that have a text)
 * @param ndcg10 mean nDCG@10
 * @param recall100 mean recall@100
 * @param mrr10 mean MRR@10
 * @param hit10 share of queries with a relevant document in the top 10 (Hit@10)
 * @param aggregation how chunk scores were folded into document scores
 * @param answered judged queries that got at least one hit
 * @param abstained judged queries that got none (the relevance gate refused every candidate)
 * @param unjudged queries without judgments that were run too (unanswerable ones, for the gate), or 0
 * @param unjudgedAbstained of those, how many got no hit (the gate abstained, as it should)
 */
@JsonPropertyOrder({"snapshot", "mode", "queries", "ndcg@10", "recall@100", "mrr@10", "hit@10", "aggregation",
    "answered", "abstained", "unjudged", "unjudged_abstained"})
public record EvalReport(
    @JsonProperty("snapshot") String snapshot,
    @JsonProperty("mode") SearchMode mode,
    @JsonProperty("queries") int queries,
    @JsonProperty("ndcg@10") double ndcg10,
    @JsonProperty("recall@100") double recall100,
    @JsonProperty("mrr@10") double mrr10,
    @JsonProperty("hit@10") double hit10,
    @JsonProperty("aggregation") Aggregation aggregation,
    @JsonProperty("answered") int answered,
    @JsonProperty("abstained") int abstained,
    @JsonProperty("unjudged") int unjudged,
    @JsonProperty("unjudged_abstained") int unjudgedAbstained) {

  /** A report without Hit@10 (kept for callers that only compute the three main metrics). */
  public EvalReport(String snapshot, SearchMode mode, int queries, double ndcg10, double recall100, double mrr10) {
    this(snapshot, mode, queries, ndcg10, recall100, mrr10, 0, Aggregation.MAX);
  }

  /** A report whose every query was answered and no unjudged query was run. */
  public EvalReport(String snapshot, SearchMode mode, int queries, double ndcg10, double recall100, double mrr10,
      double hit10, Aggregation aggregation) {
    this(snapshot, mode, queries, ndcg10, recall100, mrr10, hit10, aggregation, queries, 0, 0, 0);
  }

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** The report as pretty-printed JSON. */
  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise " + this, e);
    }
  }

  /** Reads a report written by {@link #toJson()}. */
  public static EvalReport fromJson(String json) throws JsonProcessingException {
    return JSON.readValue(json, EvalReport.class);
  }
}
