package dev.kiln.search.rewrite;

import java.util.List;
import java.util.Map;

/** What the searcher offers a {@link QueryRewriter}: its analyzer and a first-pass BM25 search. */
public interface RewriteContext {

  /** Term counts of a text after the snapshot's analyzer, in first-occurrence order. */
  Map<String, Integer> analyze(String text);

  /** Texts of the top {@code n} chunks for the query under the request's filter, best first. */
  List<String> firstPassTexts(String query, int n);

  /**
   * The fraction of the snapshot's chunks that hold {@code term} (an analysed term), for a rewriter
   * that leaves out terms too common to rank by; 0 where the context cannot tell.
   */
  default double docRatio(String term) {
    return 0;
  }
}
