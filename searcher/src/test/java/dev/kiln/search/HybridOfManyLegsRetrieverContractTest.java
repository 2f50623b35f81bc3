package dev.kiln.search;

import dev.kiln.search.fusion.ReciprocalRankFusion;
import dev.kiln.search.rewrite.FeedbackScope;
import dev.kiln.search.rewrite.LexicalFeedback;
import java.util.List;

/**
 * The retriever contract for a hybrid over three legs by RRF, one of them itself a hybrid, with
 * lexical feedback re-running every leg that reads terms over the whole snapshot ({@code --prf-scope
 * index}; the default hybrid's contract test covers the candidates scope): the legs are a list, not a
 * pair.
 */
class HybridOfManyLegsRetrieverContractTest extends RetrieverContract {
  @Override
  protected Retriever retriever(Searcher searcher) {
    return new HybridRetriever(searcher.indexSearcher(), List.of(
        new HybridRetriever.Leg(searcher.retriever(SearchMode.DENSE), 20),
        new HybridRetriever.Leg(searcher.retriever(SearchMode.BM25), 20),
        new HybridRetriever.Leg(searcher.retriever(SearchMode.HYBRID), 5)),
        new ReciprocalRankFusion(60), LexicalFeedback.DEFAULT, FeedbackScope.INDEX, searcher::terms,
        term -> 0);
  }
}
