package dev.kiln.search;

import dev.kiln.search.fusion.Fusion;
import dev.kiln.search.fusion.FusionMethod;
import dev.kiln.search.fusion.MinMaxBlend;
import dev.kiln.search.fusion.ReciprocalRankFusion;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.search.IndexSearcher;

/**
 * The retriever each {@link SearchMode} runs on one snapshot, composed once at open from its options:
 * the searcher looks the mode up here rather than branching on it.
 */
final class Retrievers {
  private final Map<SearchMode, Retriever> byMode = new EnumMap<>(SearchMode.class);

  Retrievers(IndexSearcher searcher, Retrieval retrieval, Bm25QueryBuilder bm25Queries, SearchOptions options) {
    Retriever lexical = new LexicalRetriever(retrieval);
    byMode.put(SearchMode.DENSE, new DenseRetriever(retrieval, false));
    byMode.put(SearchMode.BM25, lexical);
    byMode.put(SearchMode.HYBRID, new HybridRetriever(searcher,
        List.of(new HybridRetriever.Leg(new DenseRetriever(retrieval, true), options.denseDepth()),
            new HybridRetriever.Leg(lexical, options.bm25Depth())),
        fusion(options), options.lexicalFeedback(), options.feedbackScope(), bm25Queries::terms,
        term -> bm25Queries.docRatio(searcher.getIndexReader(), term)));
  }

  static Fusion fusion(SearchOptions options) {
    return options.fusion() == FusionMethod.RRF
        ? new ReciprocalRankFusion(options.rrfK())
        : new MinMaxBlend(options.alpha());
  }

  Retriever forMode(SearchMode mode) {
    return byMode.get(mode);
  }
}
