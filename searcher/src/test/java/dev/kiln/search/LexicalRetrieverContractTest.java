package dev.kiln.search;

/** The retriever contract for BM25 with the user's own terms. */
class LexicalRetrieverContractTest extends RetrieverContract {
  @Override
  protected Retriever retriever(Searcher searcher) {
    return searcher.retriever(SearchMode.BM25);
  }
}
