package dev.kiln.search;

import dev.kiln.index.Languages;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.automaton.ByteRunAutomaton;

/**
 * Turns free text into a bag-of-words BM25 query, the way Anserini does for BEIR: the text goes
 * through the analyzer the shards were indexed with, and every distinct term becomes an optional
 * clause. User text is never parsed as query syntax, so quotes, colons or a stray {@code AND} in a
 * question cannot fail or change the query.
 */
final class Bm25QueryBuilder {
  private final Analyzer analyzer;
  private final Analyzer chinese;
  private final String field;

  Bm25QueryBuilder(Analyzer analyzer, String field) {
    this(analyzer, null, field);
  }

  /**
   * @param chinese the analyzer Chinese documents were indexed with, or {@code null}: a Chinese query
   *     is analysed with it, so that its words match the segmented words of those documents
   */
  Bm25QueryBuilder(Analyzer analyzer, Analyzer chinese, String field) {
    this.analyzer = analyzer;
    this.chinese = chinese;
    this.field = field;
  }

  /** The query, or {@code null} when analysis leaves no terms (only stop words or punctuation). */
  Query build(String text) {
    Map<String, Float> weights = new LinkedHashMap<>();
    terms(text).forEach((t, c) -> weights.put(t, c.floatValue()));
    return build(weights);
  }

  /** A query of already analysed terms with their weights, or {@code null} when there are none. */
  Query build(Map<String, Float> weightedTerms) {
    if (weightedTerms.isEmpty()) {
      return null;
    }
    BooleanQuery.Builder query = new BooleanQuery.Builder();
    // A pasted document can hold more distinct terms than Lucene allows clauses; the first ones win
    // rather than the whole search failing.
    int room = IndexSearcher.getMaxClauseCount();
    for (Map.Entry<String, Float> e : weightedTerms.entrySet()) {
      if (room-- == 0) {
        break;
      }
      Query clause = new TermQuery(new Term(field, e.getKey()));
      // A term repeated in the query weighs that many times, as summing duplicate clauses would.
      if (e.getValue() != 1f) {
        clause = new BoostQuery(clause, e.getValue());
      }
      query.add(clause, BooleanClause.Occur.SHOULD);
    }
    return query.build();
  }

  /**
   * {@code query} cut to fit beside {@code reserved} more clauses (a filter, a candidate set) within
   * Lucene's clause limit, which counts every leaf of the whole query: a query built at the limit
   * would otherwise fail the search once anything is added to it. The first term clauses are kept,
   * as {@link #build(Map)} keeps the first terms.
   */
  static Query fit(Query query, int reserved) {
    int room = Math.max(1, IndexSearcher.getMaxClauseCount() - reserved);
    if (!(query instanceof BooleanQuery bq) || bq.clauses().size() <= room) {
      return query;
    }
    BooleanQuery.Builder cut = new BooleanQuery.Builder();
    for (BooleanClause clause : bq.clauses().subList(0, room)) {
      cut.add(clause);
    }
    return cut.build();
  }

  /** The leaves of {@code query} as Lucene's clause limit counts them (each term of a term set is one). */
  static int clauses(Query query) {
    if (query == null) {
      return 0;
    }
    int[] n = {0};
    query.visit(new QueryVisitor() {
      @Override
      public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
        return this;
      }

      @Override
      public void visitLeaf(Query leaf) {
        n[0]++;
      }

      @Override
      public void consumeTerms(Query leaf, Term... terms) {
        n[0] += terms.length;
      }

      @Override
      public void consumeTermsMatching(Query leaf, String field,
          Supplier<ByteRunAutomaton> automaton) {
        n[0]++;
      }
    });
    return n[0];
  }

  /** The fraction of {@code reader}'s chunks whose text holds the analysed {@code term}. */
  double docRatio(IndexReader reader, String term) {
    try {
      return reader.maxDoc() == 0 ? 0 : reader.docFreq(new Term(field, term)) / (double) reader.maxDoc();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the document frequency of " + term, e);
    }
  }

  /** Term counts after analysis, in first-occurrence order. */
  Map<String, Integer> terms(String text) {
    // Sized for the text, so that a chunk's hundred-odd terms do not grow the map four times over.
    Map<String, Integer> counts = LinkedHashMap.newLinkedHashMap(Math.min(1024, 8 + text.length() / 8));
    Analyzer a = chinese != null && Languages.isChinese(text) ? chinese : analyzer;
    try (TokenStream tokens = a.tokenStream(field, text)) {
      CharTermAttribute term = tokens.addAttribute(CharTermAttribute.class);
      tokens.reset();
      while (tokens.incrementToken()) {
        counts.merge(term.toString(), 1, Integer::sum);
      }
      tokens.end();
    } catch (IOException e) {
      // Analysis reads from a String: an IOException here is a bug, not a condition to handle.
      throw new UncheckedIOException("cannot analyse query text", e);
    }
    return counts;
  }
}
