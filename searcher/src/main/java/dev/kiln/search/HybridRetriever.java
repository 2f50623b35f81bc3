package dev.kiln.search;

import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.search.fusion.Fusion;
import dev.kiln.search.fusion.ScoredId;
import dev.kiln.search.rewrite.LexicalFeedback;
import dev.kiln.search.rewrite.RewrittenQuery;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.lucene.search.IndexSearcher;

/**
 * Any number of retrievers ("legs"), each to its own candidate depth, fused into one ranking ({@link
 * Fusion}: RRF or min-max blend) and cut to k. Kiln's hybrid is a dense and a BM25 leg ({@link
 * Retrievers}); the legs are a list so that another leg (a second field, another model's vectors)
 * is configuration, not code.
 *
 * <p>Fusion joins the legs' candidates on chunk ids, the only stored field read for them; where two
 * docs hold one chunk id (a chunk indexed twice), the doc the earliest leg returned stands for it.
 * Ties are broken by chunk id in fusion.
 *
 * <p>With lexical feedback on, the first fused list only picks the chunks whose text expands the
 * query's terms; the legs that read terms then run again with the expanded terms, and the final
 * fusion uses their new rankings.
 */
final class HybridRetriever implements Retriever {
  /** A retriever and the candidates it contributes at least (k when k is larger). */
  record Leg(Retriever retriever, int depth) {
    Leg {
      Objects.requireNonNull(retriever, "retriever");
    }
  }

  private final IndexSearcher searcher;
  private final List<Leg> legs;
  private final Fusion fusion;
  private final LexicalFeedback feedback;
  private final Function<String, Map<String, Integer>> analyze;

  /** @param analyze the snapshot's BM25 analysis of a text (term → count), for lexical feedback */
  HybridRetriever(IndexSearcher searcher, List<Leg> legs, Fusion fusion, LexicalFeedback feedback,
      Function<String, Map<String, Integer>> analyze) {
    if (legs.isEmpty()) {
      throw new IllegalArgumentException("a hybrid retriever needs at least one leg");
    }
    this.searcher = searcher;
    this.legs = List.copyOf(legs);
    this.fusion = Objects.requireNonNull(fusion, "fusion");
    this.feedback = Objects.requireNonNull(feedback, "feedback");
    this.analyze = analyze;
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
    HitReader reader = new HitReader(searcher);
    List<List<Candidate>> lists = new ArrayList<>(legs.size());
    for (Leg leg : legs) {
      lists.add(leg.retriever().retrieve(query, Math.max(k, leg.depth()), filter));
    }
    if (feedback.enabled()) {
      Fused first = fuse(lists, feedback.docs(), reader);
      List<String> texts = new ArrayList<>(first.ids().size());
      for (ScoredId f : first.ids()) {
        texts.add(reader.text(first.docOf(f)));
      }
      RewrittenQuery expanded = feedback.expand(query.text(), texts, analyze);
      RetrieverQuery again = new RetrieverQuery(query.text(), expanded, query.vector());
      for (int i = 0; i < legs.size(); i++) {
        Leg leg = legs.get(i);
        if (leg.retriever().usesTerms()) {
          lists.set(i, leg.retriever().retrieve(again, Math.max(k, leg.depth()), filter));
        }
      }
    }
    Fused fused = fuse(lists, k, reader);
    List<Candidate> out = new ArrayList<>(fused.ids().size());
    for (ScoredId f : fused.ids()) {
      out.add(new Candidate(fused.docOf(f), f.score()));
    }
    return out;
  }

  /** A fused ranking and, for each of its chunk ids, the doc that holds it. */
  private record Fused(List<ScoredId> ids, Map<String, Integer> docs) {
    int docOf(ScoredId id) {
      return docs.get(id.id());
    }
  }

  private Fused fuse(List<List<Candidate>> lists, int k, HitReader reader) throws IOException {
    Map<String, Integer> docs = new HashMap<>();
    List<List<ScoredId>> rankings = new ArrayList<>(lists.size());
    for (List<Candidate> list : lists) {
      rankings.add(ranking(list, reader, docs));
    }
    return new Fused(fusion.fuse(rankings, k), docs);
  }

  /** A ranking keyed by chunk id; the first doc seen for an id (earlier legs first) stands for it. */
  private static List<ScoredId> ranking(List<Candidate> list, HitReader reader, Map<String, Integer> docs)
      throws IOException {
    List<ScoredId> ids = new ArrayList<>(list.size());
    for (Candidate c : list) {
      String id = reader.chunkId(c.doc());
      docs.putIfAbsent(id, c.doc());
      ids.add(new ScoredId(id, c.score()));
    }
    return ids;
  }
}
