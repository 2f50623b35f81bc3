package dev.kiln.search.rewrite;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Keyword expansion without a model: the query's BM25 first pass supplies {@code fbDocs} chunks, and
 * the terms that several of them share — and that are rare in the snapshot — join the query as extra
 * keywords, each at a fraction of an original term's weight. In effect the query becomes several
 * queries at once (the original, and the original with each keyword its neighbours agree on) answered
 * by one BM25 pass.
 *
 * <p>It differs from {@link Rm3Rewriter} in what it trusts: RM3 keeps the terms with the most
 * probability mass in the feedback, which favours terms frequent inside one long chunk; this keeps
 * terms by how many feedback chunks agree on them ({@code minSupport} at least) times their rarity in
 * the snapshot ({@code log(1/docRatio)}), so one off-topic chunk cannot bring its vocabulary in, and
 * common words never count. The dense side keeps the user's text ({@link #rewritesDenseText()}).
 */
public final class KeywordExpansionRewriter implements QueryRewriter {
  public static final int DEFAULT_FB_DOCS = 8;
  public static final int DEFAULT_TERMS = 6;
  public static final int DEFAULT_MIN_SUPPORT = 2;
  public static final float DEFAULT_WEIGHT = 0.15f;
  /** Terms in more than this fraction of chunks are not keywords. */
  public static final double DEFAULT_MAX_DOC_RATIO = 0.05;

  private final int fbDocs;
  private final int terms;
  private final int minSupport;
  private final float weight;
  private final double maxDocRatio;

  public KeywordExpansionRewriter() {
    this(DEFAULT_FB_DOCS, DEFAULT_TERMS, DEFAULT_MIN_SUPPORT, DEFAULT_WEIGHT, DEFAULT_MAX_DOC_RATIO);
  }

  /**
   * @param fbDocs first-pass chunks read
   * @param terms keywords added at most
   * @param minSupport feedback chunks a keyword must occur in
   * @param weight an added keyword's weight relative to an original term's (the best keyword gets it)
   * @param maxDocRatio keywords held by a larger fraction of the snapshot's chunks are left out
   */
  public KeywordExpansionRewriter(int fbDocs, int terms, int minSupport, float weight, double maxDocRatio) {
    if (fbDocs < 1 || terms < 1 || minSupport < 1 || !(weight > 0 && weight <= 1)
        || !(maxDocRatio > 0 && maxDocRatio <= 1)) {
      throw new IllegalArgumentException(
          "need fbDocs >= 1, terms >= 1, minSupport >= 1, weight in (0, 1], maxDocRatio in (0, 1]");
    }
    this.fbDocs = fbDocs;
    this.terms = terms;
    this.minSupport = minSupport;
    this.weight = weight;
    this.maxDocRatio = maxDocRatio;
  }

  @Override
  public boolean rewritesDenseText() {
    return false;
  }

  @Override
  public RewrittenQuery rewrite(String query, RewriteContext context) {
    Map<String, Integer> original = context.analyze(query);
    RewrittenQuery unchanged = RewrittenQuery.of(query, original);
    if (original.isEmpty()) {
      return unchanged;
    }
    List<String> feedback = context.firstPassTexts(query, fbDocs);
    Map<String, Double> support = new HashMap<>();
    for (int rank = 0; rank < feedback.size(); rank++) {
      double prior = 1.0 / Math.sqrt(rank + 1); // agreement of the best chunks counts a little more
      for (String t : context.analyze(feedback.get(rank)).keySet()) {
        if (!original.containsKey(t)) {
          support.merge(t, prior, Double::sum);
        }
      }
    }
    // Support needed, in the prior's units: minSupport chunks at the weakest rank read.
    double needed = minSupport / Math.sqrt(Math.max(1, feedback.size()));
    List<Map.Entry<String, Double>> scored = new ArrayList<>();
    for (Map.Entry<String, Double> e : support.entrySet()) {
      if (e.getValue() < needed || e.getKey().length() < 3 || isNumber(e.getKey())) {
        continue;
      }
      double ratio = context.docRatio(e.getKey());
      if (ratio <= 0 || ratio > maxDocRatio) {
        continue; // unknown to the context (cannot judge its rarity) or too common
      }
      scored.add(Map.entry(e.getKey(), e.getValue() * Math.log(1 / ratio)));
    }
    if (scored.isEmpty()) {
      return unchanged;
    }
    scored.sort(Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
    double best = scored.get(0).getValue();
    Map<String, Float> weights = new LinkedHashMap<>();
    original.forEach((t, c) -> weights.put(t, c.floatValue()));
    for (Map.Entry<String, Double> e : scored.subList(0, Math.min(terms, scored.size()))) {
      weights.put(e.getKey(), (float) (weight * e.getValue() / best));
    }
    return new RewrittenQuery(query, weights);
  }

  private static boolean isNumber(String term) {
    for (int i = 0; i < term.length(); i++) {
      if (!Character.isDigit(term.charAt(i))) {
        return false;
      }
    }
    return true;
  }
}
