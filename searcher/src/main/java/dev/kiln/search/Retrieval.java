package dev.kiln.search;

import dev.kiln.index.KnnSearch;
import dev.kiln.index.ShardSchema;
import dev.kiln.search.filter.FilteredVectorSearch;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.FeedbackScope;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.search.TotalHits;

/**
 * The Lucene passes of one snapshot on doc ids and scores, which the {@link Retriever}s and the
 * searcher's direct methods share: dense (with its vector feedback pass) and BM25. Nothing here reads
 * a stored document whole: vector feedback reads the document ids of its first few chunks, and the
 * caller reads only the hits it returns ({@link HitReader}). Ties are broken by doc id, as Lucene does.
 */
final class Retrieval {
  /** Best score first, ties by doc id: the order of Lucene's top docs. */
  static final Comparator<ScoreDoc> BEST_FIRST =
      (a, b) -> a.score != b.score ? Float.compare(b.score, a.score) : Integer.compare(a.doc, b.doc);

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
      float[] expanded = feedback.expand(vector, feedbackVectors(top, feedback.docs(), reader));
      top = options.feedbackScope() == FeedbackScope.CANDIDATES ? rescore(top, expanded)
          : dense(expanded, k, filter);
    }
    return top;
  }

  /**
   * The first pass's docs scored exactly against {@code vector} (their stored float32 vectors, the
   * field's similarity, as the graph walk scores), best first, ties by doc id: the second pass of
   * {@code --prf-scope candidates}. They passed the filter already.
   */
  TopDocs rescore(TopDocs top, float[] vector) throws IOException {
    ScoreDoc[] docs = new ScoreDoc[top.scoreDocs.length];
    for (int i = 0; i < docs.length; i++) {
      docs[i] = new ScoreDoc(top.scoreDocs[i].doc, top.scoreDocs[i].score);
    }
    Arrays.sort(docs, Comparator.comparingInt(d -> d.doc)); // one forward pass per leaf
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    int leafIndex = -1;
    FloatVectorValues values = null;
    KnnVectorValues.DocIndexIterator it = null;
    VectorSimilarityFunction similarity = null;
    for (ScoreDoc sd : docs) {
      int li = ReaderUtil.subIndex(sd.doc, leaves);
      if (li != leafIndex) {
        leafIndex = li;
        LeafReader leaf = leaves.get(li).reader();
        values = leaf.getFloatVectorValues(ShardSchema.VECTOR);
        it = values == null ? null : values.iterator();
        similarity = values == null ? null
            : leaf.getFieldInfos().fieldInfo(ShardSchema.VECTOR).getVectorSimilarityFunction();
      }
      int local = sd.doc - leaves.get(li).docBase;
      if (it != null && (it.docID() == local || (it.docID() < local && it.advance(local) == local))) {
        sd.score = similarity.compare(vector, values.vectorValue(it.index()));
      }
    }
    Arrays.sort(docs, BEST_FIRST);
    return new TopDocs(top.totalHits, docs);
  }

  /** BM25 top {@code k} for a built query (null: no terms, nothing found) under {@code filter}. */
  TopDocs bm25(Query query, int k, MetadataFilter filter) throws IOException {
    Query q = filtered(query, filter);
    if (q == null) {
      return new TopDocs(new TotalHits(0, TotalHits.Relation.EQUAL_TO), new ScoreDoc[0]);
    }
    return top(q, k);
  }

  /**
   * The top {@code k} by score, ties by doc id, counting hits only as far as the top needs: Lucene's
   * {@code search(query, n)} counts the first 1,000 hits exactly before it may skip non-competitive
   * blocks, and nothing here reads the count. The hits are the same either way.
   */
  private TopDocs top(Query query, int k) throws IOException {
    int n = Math.max(1, Math.min(k, searcher.getIndexReader().maxDoc()));
    return searcher.search(query, new TopScoreDocCollectorManager(n, null, n));
  }

  TopDocs bm25(Map<String, Float> terms, int k, MetadataFilter filter) throws IOException {
    return bm25(bm25Queries.build(terms), k, filter);
  }

  /**
   * BM25 top {@code k} among {@code docs} only (top-level doc ids of a first pass, which passed the
   * filter already): the second pass of {@code --prf-scope candidates}, scored candidate by candidate
   * ({@link CandidateScorer}). A candidate that matches no term is left out.
   */
  TopDocs bm25Within(Map<String, Float> terms, int k, int[] docs) throws IOException {
    Query query = bm25Queries.build(terms);
    if (query == null || docs.length == 0) {
      return new TopDocs(new TotalHits(0, TotalHits.Relation.EQUAL_TO), new ScoreDoc[0]);
    }
    return CandidateScorer.top(searcher, (BooleanQuery) Bm25QueryBuilder.fit(query, 0), docs, k);
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
    return KnnSearch.floatVector(searcher.getIndexReader(), ShardSchema.VECTOR, doc);
  }

  static Query filtered(Query query, MetadataFilter filter) {
    Query f = filter.toQuery();
    if (query == null || f == null) {
      return query;
    }
    return new BooleanQuery.Builder()
        .add(Bm25QueryBuilder.fit(query, Bm25QueryBuilder.clauses(f)), BooleanClause.Occur.MUST)
        .add(f, BooleanClause.Occur.FILTER)
        .build();
  }
}
