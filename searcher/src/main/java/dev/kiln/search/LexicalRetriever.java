package dev.kiln.search;

import dev.kiln.search.filter.MetadataFilter;
import java.io.IOException;
import java.util.List;

/**
 * BM25 over the chunk text, with the snapshot's analyzer and parameters, for the query's rewritten
 * terms and weights (the user's analysed terms when no rewriter is on). No terms, nothing found. A
 * query restricted to candidates ({@link RetrieverQuery#within()}) scores only those.
 */
final class LexicalRetriever implements Retriever {
  private final Retrieval retrieval;

  LexicalRetriever(Retrieval retrieval) {
    this.retrieval = retrieval;
  }

  @Override
  public String name() {
    return "bm25";
  }

  @Override
  public boolean usesTerms() {
    return true;
  }

  @Override
  public boolean usesVector() {
    return false;
  }

  @Override
  public List<Candidate> retrieve(RetrieverQuery query, int k, MetadataFilter filter) throws IOException {
    return DenseRetriever.candidates(query.within() == null
        ? retrieval.bm25(query.rewritten().bm25Terms(), k, filter)
        : retrieval.bm25Within(query.rewritten().bm25Terms(), k, query.within()));
  }
}
