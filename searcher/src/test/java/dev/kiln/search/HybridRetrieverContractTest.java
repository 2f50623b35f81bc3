package dev.kiln.search;

/** The retriever contract for hybrid as Kiln's defaults compose it (min-max blend, dense and lexical feedback). */
class HybridRetrieverContractTest extends RetrieverContract {
  @Override
  protected Retriever retriever(Searcher searcher) {
    return searcher.retriever(SearchMode.HYBRID);
  }
}
