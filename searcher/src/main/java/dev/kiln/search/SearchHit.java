package dev.kiln.search;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One retrieved chunk.
 *
 * @param chunkId the chunk's id, {@code docId#ordinal}
 * @param docId the id of the document the chunk belongs to
 * @param score the ranking score; its scale depends on the mode (cosine-derived for dense, BM25 for
 *     bm25, fused rank score for hybrid), so only compare scores from one response
 * @param text the chunk text
 * @param title the document title
 * @param metadata the document metadata, keys without the {@code meta.} field prefix
 * @param relevance the calibrated score the relevance gate compares ({@link RelevanceGate}): the
 *     reranker's score when one ran, else the chunk's dense similarity to the query on the scale
 *     {@code --mode dense} prints ({@code (1 + cosine) / 2}); null when not computed
 * @param root the snapshots root the hit came from, in a federated search; null otherwise
 */
public record SearchHit(
    @JsonProperty("chunk_id") String chunkId,
    @JsonProperty("doc_id") String docId,
    @JsonProperty("score") double score,
    @JsonProperty("text") String text,
    @JsonProperty("title") String title,
    @JsonProperty("metadata") Map<String, String> metadata,
    @JsonProperty("relevance") @JsonInclude(JsonInclude.Include.NON_NULL) Double relevance,
    @JsonProperty("root") @JsonInclude(JsonInclude.Include.NON_NULL) String root) {

  public SearchHit {
    Objects.requireNonNull(chunkId, "chunkId");
    Objects.requireNonNull(docId, "docId");
    // Sorted so that printed results are stable whatever order Lucene returns stored fields in.
    metadata = metadata == null || metadata.isEmpty()
        ? Collections.emptySortedMap()
        : Collections.unmodifiableSortedMap(new TreeMap<>(metadata));
  }

  public SearchHit(String chunkId, String docId, double score, String text, String title,
      Map<String, String> metadata) {
    this(chunkId, docId, score, text, title, metadata, null, null);
  }

  /** The same hit with another score, as fusion assigns. */
  public SearchHit withScore(double newScore) {
    return new SearchHit(chunkId, docId, newScore, text, title, metadata, relevance, root);
  }

  /** The same hit with its calibrated score. */
  public SearchHit withRelevance(double calibrated) {
    return new SearchHit(chunkId, docId, score, text, title, metadata, calibrated, root);
  }

  /** The same hit, labelled with the snapshots root it came from. */
  public SearchHit withRoot(String label) {
    return new SearchHit(chunkId, docId, score, text, title, metadata, relevance, label);
  }
}
