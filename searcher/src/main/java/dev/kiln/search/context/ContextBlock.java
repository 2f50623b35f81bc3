package dev.kiln.search.context;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Locale;

/**
 * One passage of an assembled context.
 *
 * @param rank the passage's rank in retrieval order (1 = best), kept after reordering
 * @param chunkId the retrieved chunk (for a parent, its best-ranked child)
 * @param docId the source document
 * @param source where it comes from: metadata {@code source}, else the document id
 * @param breadcrumb where in the source: metadata {@code breadcrumb}, else the title
 * @param score the final score of the chunk
 * @param tokens model tokens of the header and text together
 * @param text the chunk's text, or its parent's
 */
public record ContextBlock(
    @JsonProperty("rank") int rank,
    @JsonProperty("chunk_id") String chunkId,
    @JsonProperty("doc_id") String docId,
    @JsonProperty("source") String source,
    @JsonProperty("breadcrumb") String breadcrumb,
    @JsonProperty("score") double score,
    @JsonProperty("tokens") int tokens,
    @JsonProperty("text") String text) {

  /** The line that heads the passage in plain text. */
  public String header() {
    String where = breadcrumb == null || breadcrumb.isBlank() ? source : source + " › " + breadcrumb;
    return String.format(Locale.ROOT, "[%d] %s (score %.4f)", rank, where, score);
  }
}
