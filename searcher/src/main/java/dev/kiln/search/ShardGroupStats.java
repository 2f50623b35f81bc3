package dev.kiln.search;

import dev.kiln.index.KnnSearch;
import dev.kiln.index.ShardSchema;
import dev.kiln.search.filter.FilteredVectorSearch;
import dev.kiln.search.filter.MetadataFilter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.similarities.BM25Similarity;

/**
 * Phase 1 of a routed search ({@link ShardGroupSearch}), both sides: a group's share of what only the
 * whole snapshot knows ({@link #stats}), the router's sum of the groups' shares ({@link #sum}), and the
 * searcher a group scores BM25 with once it has the sum ({@link #globalStats}), as Elasticsearch's DFS
 * phase does.
 */
public final class ShardGroupStats {
  private ShardGroupStats() {}

  /** This group's statistics for {@code query} under {@code filter} in {@code mode}, with the server's options. */
  public static ShardGroupSearch.Stats stats(Searcher searcher, String query, SearchMode mode,
      MetadataFilter filter) {
    return stats(searcher, new ShardGroupSearch.Effective(searcher.options(), searcher.rewriterName()), query, mode,
        filter, true);
  }

  /**
   * This group's statistics under {@code options} (the server's with the request's over them, {@link
   * ShardGroupSearch#effective}), with the query's embedding only when {@code embed}: the router asks one
   * group for it, since every group searches with that one vector and embedding is most of a stats call.
   */
  public static ShardGroupSearch.Stats stats(Searcher searcher, ShardGroupSearch.Effective options, String query,
      SearchMode mode, MetadataFilter filter, boolean embed) {
    IndexSearcher is = searcher.indexSearcher();
    IndexReader reader = is.getIndexReader();
    try {
      Map<String, long[]> termStats = new LinkedHashMap<>();
      for (String t : mode == SearchMode.DENSE ? List.<String>of() : searcher.terms(query).keySet()) {
        Term term = new Term(ShardSchema.TEXT, t);
        termStats.put(t, new long[] {reader.docFreq(term), reader.totalTermFreq(term)});
      }
      Query f = searcher.bind(filter).toQuery();
      long matches = f == null || mode == SearchMode.BM25 ? reader.numDocs() : is.count(f);
      long largest = 0;
      for (LeafReaderContext leaf : reader.leaves()) {
        largest = Math.max(largest, leaf.reader().maxDoc());
      }
      ShardGroupSearch.Plan own = ShardGroupSearch.plan(searcher);
      ShardGroupSearch.Plan effective = ShardGroupSearch.plan(searcher, options);
      return new ShardGroupSearch.Stats(searcher.snapshotId(), termStats, reader.getDocCount(ShardSchema.TEXT),
          reader.getSumTotalTermFreq(ShardSchema.TEXT), reader.getSumDocFreq(ShardSchema.TEXT), reader.maxDoc(),
          reader.numDocs(), matches, largest, searcher.shardNumbers(), searcher.shardMaxDocs(), own, effective,
          // BM25 needs the embedding only to calibrate the hits a relevance gate judges; of several groups only
          // the one the router asks embeds the query (it sends the vector on).
          !embed || (mode == SearchMode.BM25 && effective.gate().isOff()) ? null : searcher.embedQuery(query));
    } catch (IOException e) {
      throw new UncheckedIOException("reading statistics failed on snapshot " + searcher.snapshotId(), e);
    }
  }

  /**
   * The router's side: the groups' statistics summed, with the dense path decided as the single process
   * decides it ({@link KnnSearch#resolve} over the largest segment of all, with the request's ef;
   * {@link FilteredVectorSearch#choose} over the summed match count).
   *
   * @param filtered whether the request has a filter
   */
  public static ShardGroupSearch.Global sum(List<ShardGroupSearch.Stats> groups, boolean filtered) {
    ShardGroupSearch.Plan plan = groups.get(0).effectivePlan();
    int efOption = plan.ef();
    double exactRatio = plan.exactRatio();
    Map<String, long[]> terms = new LinkedHashMap<>();
    long docCount = 0;
    long sumTtf = 0;
    long sumDf = 0;
    long maxDoc = 0;
    long numDocs = 0;
    long matches = 0;
    long largest = 0;
    float[] vector = null;
    for (ShardGroupSearch.Stats s : groups) {
      if (vector == null) {
        vector = s.vector();
      }
      s.terms().forEach((t, v) -> {
        long[] acc = terms.computeIfAbsent(t, x -> new long[2]);
        acc[0] += v[0];
        acc[1] += v[1];
      });
      docCount += s.docCount();
      sumTtf += s.sumTotalTermFreq();
      sumDf += s.sumDocFreq();
      maxDoc += s.maxDoc();
      numDocs += s.numDocs();
      matches += s.filterMatches();
      largest = Math.max(largest, s.largestSegment());
    }
    int ef = efOption > 0 ? efOption : KnnSearch.efFor(largest);
    boolean exact = filtered && matches <= (long) Math.floor(exactRatio * numDocs);
    // One group's embedding for all (the first that sent one): a model's output can differ in the last
    // bits between processes (or batches), and every group must walk its graph with the same vector.
    return new ShardGroupSearch.Global(terms, docCount, sumTtf, sumDf, maxDoc, ef, exact, vector);
  }

  /** A searcher over {@code searcher}'s shards that scores BM25 with {@code global}'s statistics. */
  static IndexSearcher globalStats(Searcher searcher, ShardGroupSearch.Global global) {
    IndexSearcher is = new GlobalStatsSearcher(searcher.indexSearcher().getIndexReader(), global);
    is.setSimilarity(new BM25Similarity(searcher.manifest().index().bm25K1(), searcher.manifest().index().bm25B()));
    return is;
  }

  /**
   * A searcher that scores BM25 with the router's summed statistics instead of its own shards': the
   * same idf and average length as one process over every shard, as Elasticsearch's DFS phase does.
   */
  private static final class GlobalStatsSearcher extends IndexSearcher {
    private final ShardGroupSearch.Global global;

    GlobalStatsSearcher(IndexReader reader, ShardGroupSearch.Global global) {
      super(reader, SearchThreads.shared());
      this.global = global;
    }

    @Override
    public TermStatistics termStatistics(Term term, int docFreq, long totalTermFreq) throws IOException {
      long[] g = global.terms().get(term.text());
      return g == null || g[0] == 0 ? super.termStatistics(term, docFreq, totalTermFreq)
          : new TermStatistics(term.bytes(), g[0], g[1]);
    }

    @Override
    public CollectionStatistics collectionStatistics(String field) throws IOException {
      if (!field.equals(ShardSchema.TEXT) || global.docCount() == 0) {
        return super.collectionStatistics(field);
      }
      return new CollectionStatistics(field, global.maxDoc(), global.docCount(), global.sumTotalTermFreq(),
          global.sumDocFreq());
    }
  }
}
