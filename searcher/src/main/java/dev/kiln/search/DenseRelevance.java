package dev.kiln.search;

import dev.kiln.index.ShardSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.util.BytesRef;

/**
 * The calibration stage: each hit's calibrated score ({@link SearchHit#relevance()}) is {@code (1 +
 * cosine) / 2} of its stored vector and the query's — Lucene's dot-product score, as dense search
 * ranks by — whatever ranked the hit, so that relevance gates and federated merges compare one scale.
 */
final class DenseRelevance {
  private final IndexSearcher searcher;
  private final Retrieval retrieval;
  private final String snapshotId;

  DenseRelevance(IndexSearcher searcher, Retrieval retrieval, String snapshotId) {
    this.searcher = searcher;
    this.retrieval = retrieval;
    this.snapshotId = snapshotId;
  }

  /** Hits whose scores are already calibrated (dense hits): each score is its relevance. */
  static List<SearchHit> ofScores(List<SearchHit> hits) {
    return hits.stream().map(h -> h.withRelevance(h.score())).toList();
  }

  /** Each hit with its relevance to {@code query}, a vector of the snapshot's dimension. */
  List<SearchHit> apply(List<SearchHit> hits, float[] query) {
    if (hits.isEmpty()) {
      return hits;
    }
    // One lookup of every hit's chunk id, then each doc's stored float32 vector: an eval at depth 1000
    // would otherwise pay a term query per hit.
    Map<String, Double> relevance = new HashMap<>();
    try {
      List<BytesRef> ids = hits.stream().map(h -> new BytesRef(h.chunkId())).toList();
      TopDocs docs = searcher.search(new TermInSetQuery(ShardSchema.CHUNK_ID, ids), hits.size());
      HitReader reader = new HitReader(searcher);
      for (ScoreDoc sd : docs.scoreDocs) {
        float[] v = retrieval.vectorOf(sd.doc);
        if (v != null) {
          relevance.putIfAbsent(reader.chunkId(sd.doc),
              (double) VectorSimilarityFunction.DOT_PRODUCT.compare(query, v));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading vectors failed on snapshot " + snapshotId, e);
    }
    List<SearchHit> out = new ArrayList<>(hits.size());
    for (SearchHit h : hits) {
      Double r = relevance.get(h.chunkId());
      out.add(r == null ? h : h.withRelevance(r));
    }
    return out;
  }
}
