package dev.kiln.search;

import dev.kiln.search.filter.MetadataFilter;
import java.io.IOException;
import java.util.List;

/**
 * A first-stage retriever of one snapshot: ranks the snapshot's chunks for a query, on Lucene doc
 * ids and scores, before the stages that follow it (rerank, relevance gates, context). {@link
 * Searcher} picks one per {@link SearchMode} ({@link Retrievers}) instead of branching on the mode,
 * so a new way of recalling candidates is a new implementation, not a new branch in the searcher.
 *
 * <p>Candidates are doc ids of the snapshot's one {@code IndexSearcher}: the caller reads only the
 * hits it keeps, whole. What a retriever reads of the query it declares, so that the searcher runs
 * the rewrite stage and the embedder only for retrievers that use their output. Implementations
 * are thread-safe.
 */
public interface Retriever {
  /** The retriever's name in logs and tests: {@code dense}, {@code bm25}, {@code hybrid}. */
  String name();

  /** Whether it reads {@link RetrieverQuery#rewritten()}: the query rewrite stage runs before it. */
  boolean usesTerms();

  /** Whether it reads {@link RetrieverQuery#vector()}: the query is embedded before it. */
  boolean usesVector();

  /**
   * Whether its scores are already the calibrated score the relevance gate compares (the dense
   * similarity); otherwise the searcher computes it for each hit when a gate needs it.
   */
  default boolean scoresCalibrated() {
    return false;
  }

  /**
   * The best candidates among chunks passing {@code filter}: at most {@code k}, best first, each doc
   * once. A query with nothing to match on (no terms left after analysis, for BM25) finds nothing.
   *
   * @param filter already bound to this snapshot ({@link Searcher#bind})
   */
  List<Candidate> retrieve(RetrieverQuery query, int k, MetadataFilter filter) throws IOException;
}
