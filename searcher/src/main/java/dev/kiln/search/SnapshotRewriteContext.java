package dev.kiln.search;

import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.search.rewrite.RewriteContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;

/**
 * What a query rewriter may ask of one snapshot for one request: its BM25 analysis, and the text of
 * a first BM25 pass under the request's own filter, so that feedback never reads a chunk the request
 * could not return.
 */
final class SnapshotRewriteContext implements RewriteContext {
  private final IndexSearcher searcher;
  private final Bm25QueryBuilder bm25Queries;
  private final Retrieval retrieval;
  private final MetadataFilter filter;
  private final String snapshotId;

  SnapshotRewriteContext(IndexSearcher searcher, Bm25QueryBuilder bm25Queries, Retrieval retrieval,
      MetadataFilter filter, String snapshotId) {
    this.searcher = searcher;
    this.bm25Queries = bm25Queries;
    this.retrieval = retrieval;
    this.filter = filter;
    this.snapshotId = snapshotId;
  }

  @Override
  public Map<String, Integer> analyze(String text) {
    return bm25Queries.terms(text);
  }

  @Override
  public double docRatio(String term) {
    return bm25Queries.docRatio(searcher.getIndexReader(), term);
  }

  @Override
  public List<String> firstPassTexts(String query, int n) {
    try {
      HitReader reader = new HitReader(searcher);
      List<String> texts = new ArrayList<>(n);
      for (ScoreDoc sd : retrieval.bm25(bm25Queries.build(query), n, filter).scoreDocs) {
        texts.add(reader.text(sd.doc));
      }
      return texts;
    } catch (IOException e) {
      throw new UncheckedIOException("search failed on snapshot " + snapshotId, e);
    }
  }
}
