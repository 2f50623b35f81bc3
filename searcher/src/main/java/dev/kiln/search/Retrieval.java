package dev.kiln.search;

import dev.kiln.index.KnnSearch;
import dev.kiln.index.ShardSchema;
import dev.kiln.search.filter.FilteredVectorSearch;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.search.rewrite.DenseFeedback;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;

/**
 * The Lucene passes of one snapshot on doc ids and scores, which the {@link Retriever}s and the
 * searcher's direct methods share: dense (with its vector feedback pass) and BM25. Nothing here reads
 * a stored document whole: vector feedback reads the document ids of its first few chunks, and the
 * caller reads only the hits it returns ({@link HitReader}). Ties are broken by doc id, as Lucene does.
 */
final class Retrieval {
  private final IndexSearcher searcher;
  private final Bm25QueryBuilder bm25Queries;
  private final SearchOptions options;
  private final boolean rescore;
  /** {@code options.ef()}, or the default for this snapshot's largest segment (decided once, at open). */
  private final int ef;

  Retrieval(IndexSearcher searcher, Bm25QueryBuilder bm25Queries, SearchOptions options, boolean rescore) {
    this.searcher = searcher;
    this.bm25Queries = bm25Queries;
    this.options = options;
    this.rescore = rescore;
    this.ef = KnnSearch.resolve(options.ef(), searcher.getIndexReader());
  }

  /** The candidates each graph walk collects. */
  int ef() {
    return ef;
  }

  /** Dense top {@code k}: {@link #ef()} candidates per graph walk, cut to k. */
  TopDocs dense(float[] vector, int k, MetadataFilter filter) throws IOException {
    return FilteredVectorSearch.search(searcher, ShardSchema.VECTOR, vector, k, ef,
        filter.toQuery(), options.exactFilterRatio(), rescore);
  }

  /** Dense top {@code k} with {@link SearchOptions#denseFeedback()}: the second pass's. */
  TopDocs denseWithFeedback(float[] vector, int k, MetadataFilter filter) throws IOException {
    TopDocs top = dense(vector, k, filter);
    DenseFeedback feedback = options.denseFeedback();
    if (feedback.enabled()) {
      HitReader reader = new HitReader(searcher);
      top = dense(feedback.expand(vector, feedbackVectors(top, feedback.docs(), reader)), k, filter);
    }
    return top;
  }

  /** BM25 top {@code k} for a built query (null: no terms, nothing found) under {@code filter}. */
  TopDocs bm25(Query query, int k, MetadataFilter filter) throws IOException {
    Query q = filtered(query, filter);
    if (q == null) {
      return new TopDocs(new TotalHits(0, TotalHits.Relation.EQUAL_TO), new ScoreDoc[0]);
    }
    return searcher.search(q, k);
  }

  TopDocs bm25(Map<String, Float> terms, int k, MetadataFilter filter) throws IOException {
    return bm25(bm25Queries.build(terms), k, filter);
  }

  /**
   * Vectors of the best chunk of each of the first {@code docs} distinct documents in {@code top}:
   * one document's several chunks would otherwise count as several votes for the same topic.
   */
  private List<float[]> feedbackVectors(TopDocs top, int docs, HitReader reader) throws IOException {
    List<float[]> out = new ArrayList<>(docs);
    Set<String> seen = new HashSet<>();
    for (ScoreDoc sd : top.scoreDocs) {
      if (out.size() == docs) {
        break;
      }
      if (seen.add(reader.docId(sd.doc))) {
        float[] v = vectorOf(sd.doc);
        if (v != null) {
          out.add(v);
        }
      }
    }
    return out;
  }

  /** The stored float32 vector of a doc (whatever the encoding the graph walks), or null. */
  float[] vectorOf(int doc) throws IOException {
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
    FloatVectorValues values = leaf.reader().getFloatVectorValues(ShardSchema.VECTOR);
    if (values == null) {
      return null;
    }
    KnnVectorValues.DocIndexIterator it = values.iterator();
    int local = doc - leaf.docBase;
    return it.advance(local) == local ? values.vectorValue(it.index()).clone() : null;
  }

  static Query filtered(Query query, MetadataFilter filter) {
    Query f = filter.toQuery();
    if (query == null || f == null) {
      return query;
    }
    return new BooleanQuery.Builder()
        .add(query, BooleanClause.Occur.MUST)
        .add(f, BooleanClause.Occur.FILTER)
        .build();
  }
}
