package dev.kiln.search;

import dev.kiln.index.ShardSchema;
import dev.kiln.search.filter.FilteredVectorSearch;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.search.fusion.Fusion;
import dev.kiln.search.fusion.ScoredId;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.search.rewrite.LexicalFeedback;
import dev.kiln.search.rewrite.RewrittenQuery;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
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
 * The recall passes of one snapshot on doc ids and scores: dense (with its vector feedback pass),
 * BM25, and hybrid's fusions. Nothing here reads a stored document whole: fusion joins candidates on
 * their chunk ids (the only stored field read for them), lexical feedback reads the text of its few
 * chunks, vector feedback the document ids of the first few, and the caller reads only the hits it
 * returns ({@link HitReader}). Results are those of reading every candidate whole: the same chunk
 * ids, scores and order, ties broken by chunk id in fusion and by doc id in Lucene.
 */
final class Retrieval {
  private final IndexSearcher searcher;
  private final Bm25QueryBuilder bm25Queries;
  private final SearchOptions options;
  private final Fusion fusion;
  private final boolean rescore;

  Retrieval(IndexSearcher searcher, Bm25QueryBuilder bm25Queries, SearchOptions options, Fusion fusion,
      boolean rescore) {
    this.searcher = searcher;
    this.bm25Queries = bm25Queries;
    this.options = options;
    this.fusion = fusion;
    this.rescore = rescore;
  }

  /** Dense top {@code k}: {@code options.ef()} candidates per graph walk, cut to k. */
  TopDocs dense(float[] vector, int k, MetadataFilter filter) throws IOException {
    return FilteredVectorSearch.search(searcher, ShardSchema.VECTOR, vector, k, options.ef(),
        filter.toQuery(), options.exactFilterRatio(), rescore);
  }

  /** Dense top {@code k} with {@link SearchOptions#denseFeedback()}: the second pass's. */
  TopDocs denseWithFeedback(float[] vector, int k, MetadataFilter filter, HitReader reader)
      throws IOException {
    TopDocs top = dense(vector, k, filter);
    DenseFeedback feedback = options.denseFeedback();
    if (feedback.enabled()) {
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
   * Both retrievers to their candidate depths, fused, cut to {@code k}. With lexical feedback on, the
   * first fused list only picks the chunks that expand the BM25 query; BM25 then runs again and the
   * final fusion uses its expanded ranking.
   */
  List<SearchHit> hybrid(String original, RewrittenQuery query, float[] vector, int k,
      MetadataFilter filter, HitReader reader) throws IOException {
    int bm25Depth = Math.max(k, options.bm25Depth());
    TopDocs dense = denseWithFeedback(vector, Math.max(k, options.denseDepth()), filter, reader);
    TopDocs lexical = bm25(query.bm25Terms(), bm25Depth, filter);
    LexicalFeedback feedback = options.lexicalFeedback();
    if (feedback.enabled()) {
      Fused first = fuse(dense, lexical, feedback.docs(), reader);
      List<String> texts = new ArrayList<>(first.ids().size());
      for (ScoredId f : first.ids()) {
        texts.add(reader.text(first.docOf(f)));
      }
      RewrittenQuery expanded = feedback.expand(original, texts, bm25Queries::terms);
      lexical = bm25(expanded.bm25Terms(), bm25Depth, filter);
    }
    Fused fused = fuse(dense, lexical, k, reader);
    List<SearchHit> hits = new ArrayList<>(fused.ids().size());
    for (ScoredId f : fused.ids()) {
      hits.add(reader.hit(fused.docOf(f), f.score()));
    }
    return hits;
  }

  /** A fused ranking and, for each of its chunk ids, the doc that holds it. */
  private record Fused(List<ScoredId> ids, Map<String, Integer> docs) {
    int docOf(ScoredId id) {
      return docs.get(id.id());
    }
  }

  private Fused fuse(TopDocs dense, TopDocs lexical, int k, HitReader reader) throws IOException {
    Map<String, Integer> docs = new HashMap<>();
    List<ScoredId> denseIds = ranking(dense, reader, docs);
    List<ScoredId> lexicalIds = ranking(lexical, reader, docs);
    return new Fused(fusion.fuse(List.of(denseIds, lexicalIds), k), docs);
  }

  /** A ranking keyed by chunk id; the first doc seen for an id (dense before BM25) stands for it. */
  private static List<ScoredId> ranking(TopDocs top, HitReader reader, Map<String, Integer> docs)
      throws IOException {
    List<ScoredId> ids = new ArrayList<>(top.scoreDocs.length);
    for (ScoreDoc sd : top.scoreDocs) {
      String id = reader.chunkId(sd.doc);
      docs.putIfAbsent(id, sd.doc);
      ids.add(new ScoredId(id, sd.score));
    }
    return ids;
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
