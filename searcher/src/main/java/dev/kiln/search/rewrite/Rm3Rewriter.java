package dev.kiln.search.rewrite;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Pseudo-relevance feedback in the RM3 style (Lavrenko and Croft's relevance model, interpolated with
 * the original query as in Anserini): the top {@code fbDocs} first-pass chunks are assumed relevant,
 * a term distribution is estimated from them (each document's term frequencies normalised by its
 * length, weighted by a rank prior), its {@code fbTerms} heaviest terms are kept, and the expanded
 * query is {@code origWeight · P(t|query) + (1 - origWeight) · P(t|feedback)}.
 *
 * <p>An expansion term held by more than {@code maxDocRatio} of the chunks ({@link
 * RewriteContext#docRatio}) is left out, unless the query has it already: its IDF is so low that its
 * weight barely moves a ranking, yet its postings are the longest to advance through. Feedback
 * chunks that are not about anything in particular bring such terms most (on a million chunks of
 * sampled text they were most of what the expanded query cost).
 *
 * <p>Only the BM25 side is expanded: the dense side keeps the user's text, because appending terms
 * to the embedded text drifts the vector more than it helps. Anserini's defaults are
 * fbDocs=10, fbTerms=10, origWeight=0.5.
 */
public final class Rm3Rewriter implements QueryRewriter {
  public static final int DEFAULT_FB_DOCS = 10;
  public static final int DEFAULT_FB_TERMS = 10;
  public static final float DEFAULT_ORIG_WEIGHT = 0.5f;

  private final int fbDocs;
  private final int fbTerms;
  private final float origWeight;
  private final double maxDocRatio;

  public Rm3Rewriter() {
    this(DEFAULT_FB_DOCS, DEFAULT_FB_TERMS, DEFAULT_ORIG_WEIGHT);
  }

  /** Every expansion term kept, however common. */
  public Rm3Rewriter(int fbDocs, int fbTerms, float origWeight) {
    this(fbDocs, fbTerms, origWeight, 1);
  }

  /** @param maxDocRatio expansion terms held by a larger fraction of the chunks are left out; 1 keeps all */
  public Rm3Rewriter(int fbDocs, int fbTerms, float origWeight, double maxDocRatio) {
    if (fbDocs < 1 || fbTerms < 1 || !(origWeight >= 0 && origWeight <= 1)
        || !(maxDocRatio > 0 && maxDocRatio <= 1)) {
      throw new IllegalArgumentException(
          "need fbDocs >= 1, fbTerms >= 1, origWeight in [0, 1], maxDocRatio in (0, 1]");
    }
    this.fbDocs = fbDocs;
    this.fbTerms = fbTerms;
    this.origWeight = origWeight;
    this.maxDocRatio = maxDocRatio;
  }

  /** RM3 reweighs BM25 terms only. */
  @Override
  public boolean rewritesDenseText() {
    return false;
  }

  @Override
  public RewrittenQuery rewrite(String query, RewriteContext context) {
    Map<String, Integer> original = context.analyze(query);
    if (original.isEmpty()) {
      return RewrittenQuery.of(query, original);
    }
    List<String> feedback = context.firstPassTexts(query, fbDocs);
    if (feedback.isEmpty()) {
      return RewrittenQuery.of(query, original);
    }
    Map<String, Double> model = HashMap.newHashMap(1024); // ten chunks hold about a thousand terms
    for (int rank = 0; rank < feedback.size(); rank++) {
      Map<String, Integer> tf = context.analyze(feedback.get(rank));
      int length = tf.values().stream().mapToInt(Integer::intValue).sum();
      if (length == 0) {
        continue;
      }
      // A rank prior instead of the document's query likelihood: BM25 scores are not
      // probabilities, and a smooth decay keeps the top chunk from dominating.
      double prior = 1.0 / (rank + 1);
      tf.forEach((t, c) -> model.merge(t, prior * c / length, Double::sum));
    }
    List<Map.Entry<String, Double>> ranked = heaviest(model, fbTerms);
    double fbMass = 0;
    int kept = ranked.size();
    for (int i = 0; i < kept; i++) {
      fbMass += ranked.get(i).getValue();
    }
    int qLength = original.values().stream().mapToInt(Integer::intValue).sum();
    Map<String, Float> weights = new LinkedHashMap<>();
    original.forEach((t, c) -> weights.put(t, origWeight * c / qLength));
    for (int i = 0; i < kept; i++) {
      Map.Entry<String, Double> e = ranked.get(i);
      // The weights stay those of the whole selection: leaving a common term out takes its share of
      // the feedback mass away rather than handing it to the others.
      if (maxDocRatio < 1 && !original.containsKey(e.getKey()) && context.docRatio(e.getKey()) > maxDocRatio) {
        continue;
      }
      float w = (float) ((1 - origWeight) * e.getValue() / fbMass);
      weights.merge(e.getKey(), w, Float::sum);
    }
    return new RewrittenQuery(query, weights);
  }

  /** Heaviest first, ties by term: a total order, so the terms kept do not depend on map order. */
  private static final Comparator<Map.Entry<String, Double>> HEAVIEST =
      Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey());

  /**
   * The {@code n} heaviest terms of {@code model}, heaviest first: the first {@code n} of the whole
   * model sorted, selected with a heap of {@code n}. Ten feedback chunks hold about a thousand
   * distinct terms, and sorting them all was most of the expansion's cost, which no other work of a
   * hybrid query overlaps.
   */
  static List<Map.Entry<String, Double>> heaviest(Map<String, Double> model, int n) {
    PriorityQueue<Map.Entry<String, Double>> lightestFirst = new PriorityQueue<>(n + 1, HEAVIEST.reversed());
    for (Map.Entry<String, Double> e : model.entrySet()) {
      if (lightestFirst.size() < n) {
        lightestFirst.add(e);
      } else if (e.getValue() < lightestFirst.peek().getValue()) {
        continue; // most terms: lighter than the n-th heaviest, told by one comparison
      } else if (HEAVIEST.compare(e, lightestFirst.peek()) < 0) {
        lightestFirst.poll();
        lightestFirst.add(e);
      }
    }
    List<Map.Entry<String, Double>> out = new ArrayList<>(lightestFirst);
    out.sort(HEAVIEST);
    return out;
  }
}
