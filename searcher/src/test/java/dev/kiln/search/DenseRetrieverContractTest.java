package dev.kiln.search;

/** The retriever contract for dense, as --mode dense runs it (no vector feedback). */
class DenseRetrieverContractTest extends RetrieverContract {
  @Override
  protected Retriever retriever(Searcher searcher) {
    return searcher.retriever(SearchMode.DENSE);
  }
}
