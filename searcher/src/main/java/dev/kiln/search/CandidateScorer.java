package dev.kiln.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.Weight;

/**
 * Scores a disjunction of term clauses on a few hundred given docs only, term by term: each term's
 * postings are advanced once through the sorted candidates of a leaf and its BM25 score added to
 * theirs. A second pass over a first pass's candidates needs nothing else, and Lucene's general path
 * for the same work (the candidates as a filter clause leading the disjunction, as Kiln did until
 * 2026-12-05) keeps every term's iterator in a heap and re-orders it at each candidate: this took a
 * sixth off hybrid's second pass at a million chunks. The per-term scores are Lucene's own (each
 * clause's {@link Scorer}); only the order they are summed in differs, which moves a sum by a unit in
 * its last place at most.
 */
final class CandidateScorer {
  private CandidateScorer() {}

  /**
   * The top {@code k} of {@code docs} (top-level doc ids, any order, duplicates allowed) by the sum of
   * {@code query}'s clause scores, best first, ties by doc id; docs no clause matches are left out.
   *
   * @param query SHOULD clauses only, as {@link Bm25QueryBuilder#build} makes them
   */
  static TopDocs top(IndexSearcher searcher, BooleanQuery query, int[] docs, int k) throws IOException {
    int[] sorted = Arrays.stream(docs).sorted().distinct().toArray();
    List<Weight> weights = new ArrayList<>(query.clauses().size());
    for (BooleanClause clause : query.clauses()) {
      if (clause.occur() != BooleanClause.Occur.SHOULD) {
        throw new IllegalArgumentException("only SHOULD clauses can be scored on candidates: " + query);
      }
      Query q = searcher.rewrite(clause.query());
      weights.add(searcher.createWeight(q, ScoreMode.COMPLETE, 1f));
    }
    float[] scores = new float[sorted.length];
    List<Callable<Void>> slices = new ArrayList<>();
    for (IndexSearcher.LeafSlice slice : searcher.getSlices()) {
      slices.add(() -> {
        for (IndexSearcher.LeafReaderContextPartition part : slice.partitions) {
          LeafReaderContext leaf = part.ctx;
          int from = lowerBound(sorted, leaf.docBase + part.minDocId);
          int to = lowerBound(sorted, leaf.docBase + Math.min(part.maxDocId, leaf.reader().maxDoc()));
          if (from < to) {
            score(weights, leaf, sorted, from, to, scores);
          }
        }
        return null;
      });
    }
    // Each slice writes its own ranges of the score array; invokeAll's return publishes them.
    searcher.getTaskExecutor().invokeAll(slices);
    return best(sorted, scores, k);
  }

  /** Adds each clause's score to the candidates {@code sorted[from, to)} of one leaf it matches. */
  private static void score(List<Weight> weights, LeafReaderContext leaf, int[] sorted, int from, int to,
      float[] scores) throws IOException {
    double[] sums = new double[to - from];
    for (Weight weight : weights) {
      Scorer scorer = weight.scorer(leaf);
      if (scorer == null) {
        continue; // the term is not in this leaf
      }
      DocIdSetIterator it = scorer.iterator();
      for (int i = from; i < to; i++) {
        int doc = sorted[i] - leaf.docBase;
        int at = it.docID() < doc ? it.advance(doc) : it.docID();
        if (at == DocIdSetIterator.NO_MORE_DOCS) {
          break;
        }
        if (at == doc) {
          sums[i - from] += scorer.score();
        }
      }
    }
    for (int i = from; i < to; i++) {
      scores[i] = (float) sums[i - from];
    }
  }

  private static TopDocs best(int[] sorted, float[] scores, int k) {
    List<ScoreDoc> matched = new ArrayList<>();
    for (int i = 0; i < sorted.length; i++) {
      if (scores[i] > 0) {
        matched.add(new ScoreDoc(sorted[i], scores[i]));
      }
    }
    matched.sort(Retrieval.BEST_FIRST);
    List<ScoreDoc> top = matched.subList(0, Math.min(k, matched.size()));
    return new TopDocs(new TotalHits(matched.size(), TotalHits.Relation.EQUAL_TO), top.toArray(new ScoreDoc[0]));
  }

  /** The index of the first element of {@code sorted} at least {@code doc}. */
  private static int lowerBound(int[] sorted, int doc) {
    int i = Arrays.binarySearch(sorted, doc);
    return i >= 0 ? i : -i - 1;
  }
}
