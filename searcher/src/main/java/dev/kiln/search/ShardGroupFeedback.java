package dev.kiln.search;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.kiln.index.ShardSchema;
import dev.kiln.search.filter.MetadataFilter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;

/**
 * A shard group's side of hybrid search's feedback passes (protocol version 2, docs/FORMATS.md "Shard
 * group protocol"). The router picks the feedback chunks from the merged first pass and computes the
 * expanded query itself ({@link FeedbackMerge}); a group only reads what it holds and runs its share
 * of the second pass:
 *
 * <ul>
 *   <li>{@link #chunks}: the document id, stored vector and analysed text of given chunks (the dense
 *       feedback's votes, the lexical feedback's texts), and the query's own analysis;</li>
 *   <li>{@link #rescore}: given first-pass candidates scored against the expanded vector ({@code
 *       --prf-scope candidates});</li>
 *   <li>{@link #termStats}: document and term frequencies of expansion terms, which the router sums
 *       (RM3's common-term cut and BM25's idf need the whole snapshot's);</li>
 *   <li>{@link #dense} and {@link #bm25}: the second pass's leg, over the whole group (scope {@code
 *       index}) or, for BM25, over the group's own first-pass candidates (scope {@code candidates}).</li>
 * </ul>
 */
public final class ShardGroupFeedback {
  private ShardGroupFeedback() {}

  /**
   * A chunk as feedback reads it.
   *
   * @param docId its document's id (dense feedback takes one vote per document)
   * @param vector its stored float32 vector, when asked for and the chunk has one
   * @param terms its text's BM25 analysis (term → count, in first-occurrence order), when asked for
   */
  public record Chunk(@JsonProperty("doc_id") String docId, @JsonProperty("vector") float[] vector,
      @JsonProperty("terms") Map<String, Integer> terms) {}

  /** The chunks of {@code hits} (this group's), in order. */
  public static List<Chunk> chunks(Searcher searcher, List<ShardGroupSearch.Hit> hits, boolean vectors,
      boolean terms) {
    try {
      HitReader reader = new HitReader(searcher.indexSearcher());
      List<Chunk> out = new ArrayList<>(hits.size());
      for (ShardGroupSearch.Hit h : hits) {
        int doc = ShardGroupSearch.docOf(searcher, h);
        float[] vector = vectors ? searcher.retrieval().vectorOf(doc) : null;
        // As hybrid's lexical feedback reads a chunk: a missing text is an empty one.
        Map<String, Integer> analysed = terms
            ? searcher.terms(Objects.requireNonNullElse(reader.text(doc), "")) : null;
        out.add(new Chunk(reader.docId(doc), vector, analysed));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("reading feedback chunks failed on snapshot " + searcher.snapshotId(), e);
    }
  }

  /**
   * Each text's BM25 analysis (term → count, in first-occurrence order): what a router's query rewriter
   * reads the query and its first pass's chunks with.
   */
  public static List<Map<String, Integer>> analyze(Searcher searcher, List<String> texts) {
    List<Map<String, Integer>> out = new ArrayList<>(texts.size());
    for (String t : texts) {
      out.add(searcher.terms(t));
    }
    return out;
  }

  /** The query's BM25 analysis: term → count, in first-occurrence order. */
  public static Map<String, Integer> queryTerms(Searcher searcher, String query) {
    return searcher.terms(query);
  }

  /**
   * {@code hits} (this group's, first-pass dense candidates) scored against {@code vector} as the
   * single process re-scores them ({@link Retrieval#rescore}); in the order given.
   */
  public static float[] rescore(Searcher searcher, List<ShardGroupSearch.Hit> hits, float[] vector) {
    ScoreDoc[] docs = new ScoreDoc[hits.size()];
    for (int i = 0; i < docs.length; i++) {
      docs[i] = new ScoreDoc(ShardGroupSearch.docOf(searcher, hits.get(i)), (float) hits.get(i).score());
    }
    try {
      TopDocs rescored = searcher.retrieval().rescore(
          new TopDocs(new TotalHits(docs.length, TotalHits.Relation.EQUAL_TO), docs), vector);
      Map<Integer, Float> byDoc = HashMap.newHashMap(docs.length);
      for (ScoreDoc sd : rescored.scoreDocs) {
        byDoc.put(sd.doc, sd.score);
      }
      float[] out = new float[docs.length];
      for (int i = 0; i < docs.length; i++) {
        out[i] = byDoc.get(docs[i].doc);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("re-scoring failed on snapshot " + searcher.snapshotId(), e);
    }
  }

  /** Each term's [document frequency, total term frequency] in this group's shards. */
  public static Map<String, long[]> termStats(Searcher searcher, Collection<String> terms) {
    IndexReader reader = searcher.indexSearcher().getIndexReader();
    Map<String, long[]> out = new LinkedHashMap<>();
    try {
      for (String t : terms) {
        Term term = new Term(ShardSchema.TEXT, t);
        out.put(t, new long[] {reader.docFreq(term), reader.totalTermFreq(term)});
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("reading statistics failed on snapshot " + searcher.snapshotId(), e);
    }
  }

  /** The second dense pass of scope index: {@code n} nearest to the expanded {@code vector}. */
  public static ShardGroupSearch.Leg dense(Searcher searcher, float[] vector, MetadataFilter filter, int n,
      ShardGroupSearch.Global global) {
    try {
      return ShardGroupSearch.dense(searcher, vector, searcher.bind(filter), n, global);
    } catch (IOException e) {
      throw new UncheckedIOException("search failed on snapshot " + searcher.snapshotId(), e);
    }
  }

  /**
   * The second BM25 pass for the expanded {@code terms}, scored with {@code global}'s statistics:
   * among {@code within} (this group's first-pass candidates, which passed the filter already) as
   * {@link Retrieval#bm25Within} scores them, or, when null, over the group under {@code filter}.
   */
  public static ShardGroupSearch.Leg bm25(Searcher searcher, Map<String, Float> terms, MetadataFilter filter,
      int n, ShardGroupSearch.Global global, List<ShardGroupSearch.Hit> within) {
    Query query = searcher.bm25Queries().build(terms);
    try {
      if (within == null) {
        return ShardGroupSearch.bm25(searcher, query, searcher.bind(filter), n, global);
      }
      int[] docs = within.stream().mapToInt(h -> ShardGroupSearch.docOf(searcher, h)).toArray();
      if (query == null || docs.length == 0) {
        return new ShardGroupSearch.Leg("bm25", n, List.of());
      }
      TopDocs top = CandidateScorer.top(ShardGroupStats.globalStats(searcher, global),
          (BooleanQuery) Bm25QueryBuilder.fit(query, 0), docs, n);
      return new ShardGroupSearch.Leg("bm25", n, ShardGroupSearch.hits(searcher, top));
    } catch (IOException e) {
      throw new UncheckedIOException("search failed on snapshot " + searcher.snapshotId(), e);
    }
  }
}
