package dev.kiln.search;

import dev.kiln.search.rewrite.LexicalFeedback;
import dev.kiln.search.rewrite.RewrittenQuery;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The router's side of hybrid search's feedback passes over shard groups ({@link ShardGroupFeedback}):
 * the same choices and arithmetic as the single process ({@link Retrieval#denseWithFeedback}, {@link
 * HybridRetriever}), made on the merged first pass with what the groups read for it.
 */
public final class FeedbackMerge {
  private FeedbackMerge() {}

  /**
   * Dense feedback's votes, taken in the merged first pass's order as the single process takes them:
   * the vector of the best chunk of each of the first {@code docs} distinct documents (a document
   * whose best chunk has no vector gives none).
   */
  public static final class Votes {
    private final int docs;
    private final List<float[]> vectors = new ArrayList<>();
    private final Set<String> seen = new HashSet<>();

    public Votes(int docs) {
      this.docs = docs;
    }

    /** Whether the votes are all in. */
    public boolean done() {
      return vectors.size() >= docs;
    }

    /** The next chunk of the first pass, in order. */
    public void add(ShardGroupFeedback.Chunk chunk) {
      if (!done() && seen.add(chunk.docId()) && chunk.vector() != null) {
        vectors.add(chunk.vector());
      }
    }

    public List<float[]> vectors() {
      return vectors;
    }
  }

  /**
   * The merged dense first pass with the groups' re-scores ({@code scores}, aligned with {@code
   * dense}), in the order {@link Retrieval#rescore} sorts them.
   */
  public static List<ShardGroupSearch.Hit> rescored(List<ShardGroupSearch.Hit> dense, double[] scores, long[] starts) {
    List<ShardGroupSearch.Hit> out = new ArrayList<>(dense.size());
    for (int i = 0; i < dense.size(); i++) {
      ShardGroupSearch.Hit h = dense.get(i);
      out.add(new ShardGroupSearch.Hit(h.shard(), h.doc(), scores[i]));
    }
    return ShardMerge.bestFirst(out, starts);
  }

  /**
   * The terms whose whole-snapshot statistics lexical feedback needs besides the query's own: its
   * expansion candidates (RM3's heaviest feedback terms), before its common-term cut, which needs
   * their document frequencies.
   */
  public static Set<String> expansionTerms(LexicalFeedback feedback, Map<String, Integer> queryTerms,
      List<Map<String, Integer>> analysed) {
    // RM3 asks the document ratio of each candidate term; none is cut when it is 0, so every candidate
    // is in the answer.
    Set<String> out = new LinkedHashSet<>(expand(feedback, queryTerms, analysed, t -> 0).bm25Terms().keySet());
    out.removeAll(queryTerms.keySet());
    return out;
  }

  /**
   * The expanded query as {@link HybridRetriever} makes it from the feedback chunks' analyses (best
   * first) and the query's.
   *
   * @param docRatio the fraction of the whole snapshot's chunks holding a term ({@link #docRatio})
   */
  public static RewrittenQuery expand(LexicalFeedback feedback, Map<String, Integer> queryTerms,
      List<Map<String, Integer>> analysed, ToDoubleFunction<String> docRatio) {
    // The rewriter reads texts only through their analysis: keys stand for them, the query's apart.
    String query = "query";
    Map<String, Map<String, Integer>> byKey = new HashMap<>();
    byKey.put(query, queryTerms);
    List<String> keys = new ArrayList<>(analysed.size());
    for (int i = 0; i < analysed.size(); i++) {
      String key = "chunk " + i;
      keys.add(key);
      byKey.put(key, analysed.get(i));
    }
    return feedback.expand(query, keys, byKey::get, docRatio);
  }

  /** Document ratios from the groups' summed document frequencies over {@code maxDoc} chunks in all. */
  public static ToDoubleFunction<String> docRatio(Map<String, long[]> terms, long maxDoc) {
    return t -> {
      long[] s = terms.get(t);
      return maxDoc == 0 || s == null ? 0 : s[0] / (double) maxDoc;
    };
  }

  /**
   * {@code global} with {@code more} terms' summed statistics added (the expansion terms the second
   * BM25 pass scores).
   */
  public static ShardGroupSearch.Global withTerms(ShardGroupSearch.Global global, Map<String, long[]> more) {
    Map<String, long[]> terms = new LinkedHashMap<>(global.terms());
    more.forEach(terms::putIfAbsent);
    return new ShardGroupSearch.Global(terms, global.docCount(), global.sumTotalTermFreq(), global.sumDocFreq(),
        global.maxDoc(), global.ef(), global.exact(), global.vector());
  }
}
