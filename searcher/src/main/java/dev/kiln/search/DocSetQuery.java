package dev.kiln.search;

import java.util.Arrays;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.ConstantScoreScorer;
import org.apache.lucene.search.ConstantScoreWeight;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Weight;

/**
 * Matches a fixed set of top-level doc ids of the searcher it was made for: the candidates a first
 * pass found, as a filter clause, so that a second query scores only them. A conjunction is led by its
 * cheapest clause, so a BM25 query of twenty terms filtered by 200 docs visits 200 docs, not the
 * postings of every term. Doc ids are only meaningful for the reader they came from: the query must
 * run on that searcher, and is not cacheable.
 */
final class DocSetQuery extends Query {
  private final int[] docs; // sorted, distinct

  /** @param docs top-level doc ids, in any order, duplicates allowed */
  DocSetQuery(int[] docs) {
    this.docs = Arrays.stream(docs).sorted().distinct().toArray();
  }

  int size() {
    return docs.length;
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
    return new ConstantScoreWeight(this, boost) {
      @Override
      public ScorerSupplier scorerSupplier(LeafReaderContext context) {
        int from = lowerBound(context.docBase);
        int to = lowerBound(context.docBase + context.reader().maxDoc());
        if (from == to) {
          return null;
        }
        ConstantScoreScorer scorer = new ConstantScoreScorer(score(), scoreMode,
            new SliceIterator(docs, from, to, context.docBase));
        return new DefaultScorerSupplier(scorer);
      }

      @Override
      public boolean isCacheable(LeafReaderContext ctx) {
        return false;
      }
    };
  }

  /** The index of the first doc id ≥ {@code doc}. */
  private int lowerBound(int doc) {
    int i = Arrays.binarySearch(docs, doc);
    return i >= 0 ? i : -i - 1;
  }

  @Override
  public void visit(QueryVisitor visitor) {
    visitor.visitLeaf(this);
  }

  @Override
  public String toString(String field) {
    return "DocSetQuery(" + docs.length + " docs)";
  }

  @Override
  public boolean equals(Object other) {
    return sameClassAs(other) && Arrays.equals(docs, ((DocSetQuery) other).docs);
  }

  @Override
  public int hashCode() {
    return 31 * classHash() + Arrays.hashCode(docs);
  }

  /** {@code docs[from, to)} as leaf-local doc ids. */
  private static final class SliceIterator extends DocIdSetIterator {
    private final int[] docs;
    private final int from;
    private final int to;
    private final int base;
    private int i;
    private int doc = -1;

    SliceIterator(int[] docs, int from, int to, int base) {
      this.docs = docs;
      this.from = from;
      this.to = to;
      this.base = base;
      this.i = from;
    }

    @Override
    public int docID() {
      return doc;
    }

    @Override
    public int nextDoc() {
      doc = i < to ? docs[i++] - base : NO_MORE_DOCS;
      return doc;
    }

    @Override
    public int advance(int target) {
      while (i < to && docs[i] - base < target) {
        i++;
      }
      return nextDoc();
    }

    @Override
    public long cost() {
      return to - from;
    }
  }
}
