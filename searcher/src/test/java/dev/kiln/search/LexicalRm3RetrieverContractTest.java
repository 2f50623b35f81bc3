package dev.kiln.search;

/** The retriever contract for BM25 after the RM3 rewrite (--prf), whose first pass runs under the request's filter. */
class LexicalRm3RetrieverContractTest extends RetrieverContract {
  @Override
  protected SearchOptions options() {
    return SearchOptions.defaults().withPrf(true);
  }

  @Override
  protected Retriever retriever(Searcher searcher) {
    return searcher.retriever(SearchMode.BM25);
  }
}
