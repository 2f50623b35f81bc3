package dev.kiln.search.filter;

import dev.kiln.index.KnnSearch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.ConjunctionUtils;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.VectorScorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;

/**
 * Dense search under a metadata filter. This is the one place that decides between walking the HNSW
 * graph with the filter applied inside the traversal and scoring every matching vector exactly.
 *
 * <p>What Lucene 10.6 decides by itself, per segment, for {@link KnnFloatVectorQuery} with a filter:
 * it materialises the filter's matches; if they are no more than {@code k} it scores them exactly;
 * otherwise it walks the graph, only collecting accepted documents, with a visit limit of the match
 * count; when the walk hits that limit it abandons it and scores the matches exactly. (Its {@code
 * KnnSearchStrategy.Hnsw} can also explore through rejected neighbours ACORN-style when the accepted
 * fraction is below {@code filteredSearchThreshold} percent, but that threshold defaults to 0 in
 * 10.6, so Kiln, using the default strategy, does not.) So a very selective filter already ends in an exact search, but only after a
 * wasted graph walk, and the cut-over depends on segment size rather than on the snapshot.
 *
 * <p>Kiln makes the choice explicit and snapshot-wide: when the filter matches at most {@code
 * exactRatio} of all chunks, it skips the graph and scores the matches itself. Above that, it is
 * Lucene's filtered HNSW search (with Lucene's own fallback still in place).
 */
public final class FilteredVectorSearch {
  /** Which path a search took; counted by the searcher. */
  public enum Path { UNFILTERED_ANN, FILTERED_ANN, EXACT }

  private FilteredVectorSearch() {}

  /** The path {@link #search} takes for a filter matching {@code matches} of {@code total} chunks. */
  public static Path choose(Query filter, int matches, int total, double exactRatio) {
    if (filter == null) {
      return Path.UNFILTERED_ANN;
    }
    return matches <= (long) Math.floor(exactRatio * total) ? Path.EXACT : Path.FILTERED_ANN;
  }

  /**
   * Top {@code k} by vector similarity among the documents matching {@code filter} (all when null).
   * The graph walks collect {@code ef} candidates (at least k) and are rescored with float32 vectors
   * when {@code rescore} ({@link KnnSearch}); the exact path scores float32 vectors directly.
   *
   * @param exactRatio filter selectivity at or below which the search is exact; 0 never forces it
   */
  public static TopDocs search(IndexSearcher searcher, String field, float[] target, int k, int ef,
      Query filter, double exactRatio, boolean rescore) throws IOException {
    if (filter == null) {
      return KnnSearch.search(searcher, field, target, k, ef, null, rescore);
    }
    int matches = searcher.count(filter);
    if (matches == 0) {
      return new TopDocs(new TotalHits(0, TotalHits.Relation.EQUAL_TO), new ScoreDoc[0]);
    }
    if (choose(filter, matches, searcher.getIndexReader().numDocs(), exactRatio) == Path.EXACT) {
      return exact(searcher, field, target, k, filter, rescore);
    }
    return KnnSearch.search(searcher, field, target, k, ef, filter, rescore);
  }

  /**
   * Scores every document matching {@code filter} (all documents when null) against the target with
   * the field's own similarity, so scores equal those of the approximate search. Ties go to the
   * lower doc id, as in Lucene's top-docs merge.
   */
  public static TopDocs exact(IndexSearcher searcher, String field, float[] target, int k,
      Query filter) throws IOException {
    return exact(searcher, field, target, k, filter, false);
  }

  /**
   * {@link #exact(IndexSearcher, String, float[], int, Query)}; with {@code fullPrecision} (quantised
   * encodings, whose vector scorer scores the quantised copy) each float32 vector is compared with
   * the target directly, which is what rescoring returns.
   */
  public static TopDocs exact(IndexSearcher searcher, String field, float[] target, int k,
      Query filter, boolean fullPrecision) throws IOException {
    Weight weight = filter == null ? null
        : searcher.createWeight(searcher.rewrite(filter), ScoreMode.COMPLETE_NO_SCORES, 1f);
    PriorityQueue<ScoreDoc> top = new PriorityQueue<>(k + 1,
        (a, b) -> a.score != b.score ? Float.compare(a.score, b.score) : Integer.compare(b.doc, a.doc));
    long scored = 0;
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      FloatVectorValues values = leaf.reader().getFloatVectorValues(field);
      if (values == null) {
        continue;
      }
      VectorScorer vectors = fullPrecision ? null : values.scorer(target);
      KnnVectorValues.DocIndexIterator raw = fullPrecision ? values.iterator() : null;
      if (vectors == null && raw == null) {
        continue;
      }
      VectorSimilarityFunction similarity = leaf.reader().getFieldInfos().fieldInfo(field)
          .getVectorSimilarityFunction();
      DocIdSetIterator docs = fullPrecision ? raw : vectors.iterator();
      DocIdSetIterator it = docs;
      if (weight != null) {
        Scorer matching = weight.scorer(leaf);
        if (matching == null) {
          continue;
        }
        it = ConjunctionUtils.intersectIterators(List.of(matching.iterator(), docs));
      }
      Bits live = leaf.reader().getLiveDocs();
      for (int doc = it.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
        if (live != null && !live.get(doc)) {
          continue;
        }
        scored++;
        float score = fullPrecision
            ? similarity.compare(target, values.vectorValue(raw.index()))
            : vectors.score();
        top.add(new ScoreDoc(leaf.docBase + doc, score));
        if (top.size() > k) {
          top.poll();
        }
      }
    }
    List<ScoreDoc> best = new ArrayList<>(top);
    best.sort((a, b) -> a.score != b.score ? Float.compare(b.score, a.score) : Integer.compare(a.doc, b.doc));
    return new TopDocs(new TotalHits(scored, TotalHits.Relation.EQUAL_TO), best.toArray(new ScoreDoc[0]));
  }
}
