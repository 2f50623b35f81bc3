package dev.kiln.search;

import dev.kiln.index.ShardSchema;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.search.fusion.Fusion;
import dev.kiln.search.fusion.ScoredId;
import dev.kiln.search.rewrite.FeedbackScope;
import dev.kiln.search.rewrite.LexicalFeedback;
import dev.kiln.search.rewrite.RewrittenQuery;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.apache.lucene.document.Document;
import org.apache.lucene.search.IndexSearcher;

/**
 * Any number of retrievers ("legs"), each to its own candidate depth, fused into one ranking ({@link
 * Fusion}: RRF or min-max blend) and cut to k. Kiln's hybrid is a dense and a BM25 leg ({@link
 * Retrievers}); the legs are a list so that another leg (a second field, another model's vectors)
 * is configuration, not code.
 *
 * <p>Fusion joins the legs' candidates on their Lucene doc ids (zero-padded, so that ties break in
 * index order): within one snapshot a chunk is one doc — a document lives in one shard, and
 * deduplication keeps one record per id — so doc ids join the legs as chunk ids would, without
 * decompressing a stored-fields block per candidate (up to 200 reads a query; at 1M chunks they were
 * a large part of hybrid's latency).
 *
 * <p>With lexical feedback on, the first fused list only picks the chunks whose text expands the
 * query's terms; the legs that read terms then run again with the expanded terms — over the legs'
 * first candidates only ({@link FeedbackScope#CANDIDATES}, the default) or the whole snapshot — and
 * the final fusion uses their new rankings.
 *
 * <p>The legs run side by side only while the searcher has fewer slices than pool threads. Once each
 * leg's own slices fill the pool, they take turns: three or more threads on two cores made Lucene's
 * segment tasks queue behind each other's time slices, and at 1M chunks on two cores the BM25 leg,
 * the longest, finished later side by side than after the dense leg (hybrid p50 −0.35 ms).
 */
final class HybridRetriever implements Retriever {
  /** A retriever and the candidates it contributes at least (k when k is larger). */
  record Leg(Retriever retriever, int depth) {
    Leg {
      Objects.requireNonNull(retriever, "retriever");
    }

    /** The leg's candidates for a fused top {@code k}: its depth of them, at least k. */
    List<Candidate> retrieve(RetrieverQuery query, int k, MetadataFilter filter) throws IOException {
      return retriever.retrieve(query, Math.max(k, depth), filter);
    }
  }

  private final IndexSearcher searcher;
  private final List<Leg> legs;
  private final Fusion fusion;
  private final LexicalFeedback feedback;
  private final FeedbackScope scope;
  private final Function<String, Map<String, Integer>> analyze;
  private final ToDoubleFunction<String> docRatio;
  private final boolean legsTakeTurns;

  /**
   * @param analyze the snapshot's BM25 analysis of a text (term → count), for lexical feedback
   * @param docRatio the fraction of the snapshot's chunks holding an analysed term, for lexical feedback
   */
  HybridRetriever(IndexSearcher searcher, List<Leg> legs, Fusion fusion, LexicalFeedback feedback,
      FeedbackScope scope, Function<String, Map<String, Integer>> analyze, ToDoubleFunction<String> docRatio) {
    if (legs.isEmpty()) {
      throw new IllegalArgumentException("a hybrid retriever needs at least one leg");
    }
    this.searcher = searcher;
    this.legs = List.copyOf(legs);
    this.fusion = Objects.requireNonNull(fusion, "fusion");
    this.feedback = Objects.requireNonNull(feedback, "feedback");
    this.scope = Objects.requireNonNull(scope, "scope");
    this.analyze = analyze;
    this.docRatio = Objects.requireNonNull(docRatio, "docRatio");
    this.legsTakeTurns = searcher.getSlices().length >= SearchThreads.size();
  }

  @Override
  public String name() {
    return "hybrid(" + String.join(",", legs.stream().map(l -> l.retriever().name()).toList()) + ")";
  }

  @Override
  public boolean usesTerms() {
    return legs.stream().anyMatch(l -> l.retriever().usesTerms());
  }

  @Override
  public boolean usesVector() {
    return legs.stream().anyMatch(l -> l.retriever().usesVector());
  }

  @Override
  public List<Candidate> retrieve(RetrieverQuery query, int k, MetadataFilter filter) throws IOException {
    List<List<Candidate>> lists = firstPass(query, k, filter);
    Map<Integer, Document> stored = new HashMap<>();
    if (feedback.enabled()) {
      Fused fused = fuse(lists, feedback.docs());
      int[] feedbackDocs = new int[fused.ids().size()];
      for (int i = 0; i < feedbackDocs.length; i++) {
        feedbackDocs[i] = fused.docOf(fused.ids().get(i));
      }
      List<FeedbackChunk> read = readAndAnalyse(feedbackDocs);
      List<String> texts = new ArrayList<>(read.size());
      Map<String, Map<String, Integer>> analysed = new HashMap<>();
      for (FeedbackChunk c : read) {
        texts.add(c.text());
        analysed.putIfAbsent(c.text(), c.terms());
        stored.put(c.doc(), c.stored());
      }
      RewrittenQuery expanded = feedback.expand(query.text(), texts,
          text -> analysed.containsKey(text) ? analysed.get(text) : analyze.apply(text), docRatio);
      RetrieverQuery again = new RetrieverQuery(query.text(), expanded, query.vector(),
          scope == FeedbackScope.CANDIDATES ? docsOf(lists) : null);
      for (int i = 0; i < legs.size(); i++) {
        Leg leg = legs.get(i);
        if (leg.retriever().usesTerms()) {
          lists.set(i, leg.retrieve(again, k, filter));
        }
      }
    }
    Fused fused = fuse(lists, k);
    List<Candidate> out = new ArrayList<>(fused.ids().size());
    for (ScoredId f : fused.ids()) {
      int doc = fused.docOf(f);
      out.add(new Candidate(doc, f.score(), stored.get(doc)));
    }
    return out;
  }

  /** Each leg's first candidates, in leg order. */
  private List<List<Candidate>> firstPass(RetrieverQuery query, int k, MetadataFilter filter) throws IOException {
    List<List<Candidate>> lists = new ArrayList<>(legs.size());
    if (legsTakeTurns) {
      for (Leg leg : legs) {
        lists.add(leg.retrieve(query, k, filter));
      }
      return lists;
    }
    // Side by side on the searcher's pool. Lucene's task executor has the calling thread run every
    // part no pool thread has started, so a saturated pool means turns, never a deadlock, also when a
    // leg searches its segments on the same pool.
    List<Callable<List<Candidate>>> first = new ArrayList<>(legs.size());
    for (Leg leg : legs) {
      first.add(() -> leg.retrieve(query, k, filter));
    }
    lists.addAll(searcher.getTaskExecutor().invokeAll(first));
    return lists;
  }

  /** A feedback chunk: its doc, its stored fields read whole, its text and the text's analysis. */
  private record FeedbackChunk(int doc, Document stored, String text, Map<String, Integer> terms) {}

  /**
   * The feedback chunks, best first, read whole and their texts analysed: reading a chunk (a stored
   * block decompressed) and analysing its text are most of the feedback step's cost, so the two
   * halves of the list run side by side. They are read whole because most feedback chunks come back
   * among the hits, which then need not be read again.
   */
  private List<FeedbackChunk> readAndAnalyse(int[] docs) throws IOException {
    int half = (docs.length + 1) / 2;
    List<Callable<List<FeedbackChunk>>> parts = List.of(
        () -> readAndAnalyse(docs, 0, half), () -> readAndAnalyse(docs, half, docs.length));
    List<FeedbackChunk> out = new ArrayList<>(docs.length);
    searcher.getTaskExecutor().invokeAll(parts).forEach(out::addAll);
    return out;
  }

  private List<FeedbackChunk> readAndAnalyse(int[] docs, int from, int to) throws IOException {
    HitReader reader = new HitReader(searcher); // one per thread: stored fields are not shared
    List<FeedbackChunk> out = new ArrayList<>(to - from);
    for (int i = from; i < to; i++) {
      Document d = reader.document(docs[i]);
      String text = Objects.requireNonNullElse(d.get(ShardSchema.TEXT), "");
      out.add(new FeedbackChunk(docs[i], d, text, analyze.apply(text)));
    }
    return out;
  }

  /** Every doc the legs found, once each (the candidates a feedback pass may re-score). */
  private static int[] docsOf(List<List<Candidate>> lists) {
    return lists.stream().flatMap(List::stream).mapToInt(Candidate::doc).distinct().toArray();
  }

  /** A fused ranking and, for each of its chunk ids, the doc that holds it. */
  private record Fused(List<ScoredId> ids, Map<String, Integer> docs) {
    int docOf(ScoredId id) {
      return docs.get(id.id());
    }
  }

  private Fused fuse(List<List<Candidate>> lists, int k) {
    Map<String, Integer> docs = HashMap.newHashMap(lists.stream().mapToInt(List::size).sum());
    List<List<ScoredId>> rankings = new ArrayList<>(lists.size());
    for (List<Candidate> list : lists) {
      rankings.add(ranking(list, docs));
    }
    return new Fused(fusion.fuse(rankings, k), docs);
  }

  /** A ranking keyed by doc id ({@link #key}). */
  private static List<ScoredId> ranking(List<Candidate> list, Map<String, Integer> docs) {
    List<ScoredId> ids = new ArrayList<>(list.size());
    for (Candidate c : list) {
      String id = key(c.doc());
      docs.putIfAbsent(id, c.doc());
      ids.add(new ScoredId(id, c.score()));
    }
    return ids;
  }

  /** A doc id as a fusion key: ten digits, so that the keys' order (fusion's tie-break) is index order. */
  static String key(int doc) {
    String digits = Integer.toString(doc);
    return "0".repeat(Math.max(0, 10 - digits.length())) + digits;
  }
}
