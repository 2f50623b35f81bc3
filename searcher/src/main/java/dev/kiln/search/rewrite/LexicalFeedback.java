package dev.kiln.search.rewrite;

import dev.kiln.config.ConfigException;
import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Pseudo-relevance feedback for hybrid search's BM25 side, fed by the hybrid list itself: the first
 * fused ranking (dense and BM25 together) picks the feedback chunks, an {@link Rm3Rewriter} expands
 * the query from them, and BM25 runs again with the expanded terms before the final fusion.
 *
 * <p>Classic RM3 takes its feedback from a first BM25 pass, which on SciFact hurt (0.6793 vs 0.6842
 * nDCG@10): its top chunks are often lexical near-misses. The fused list's top chunks are better
 * judged, and expansion from them helped on both tuning sets (docs/QUALITY.md). Defaults: Anserini's
 * 10 chunks and 10 terms; the original query keeps weight 0.7, chosen on SciFact's train split among
 * 0.5, 0.7 and 0.85; expansion terms held by more than 20 % of the chunks are left out, a latency
 * lever whose quality cost stays within noise (SciFact train 0.7702 vs 0.7697 nDCG@10, Cranfield 0.4371
 * vs 0.4352 with MiniLM and 0.4388 vs 0.4414 with bge; docs/QUALITY.md) and which took a tenth off
 * hybrid search at a million chunks (docs/results/scale.md).
 *
 * @param docs feedback chunks from the top of the first fused list (0 switches feedback off)
 * @param terms expansion terms kept
 * @param originalWeight weight of the original query terms against the feedback model, in [0, 1]
 * @param maxDocRatio expansion terms held by a larger fraction of the snapshot's chunks are left out
 *     (the query's own terms never are), in (0, 1]; 1 keeps every term
 */
public record LexicalFeedback(int docs, int terms, double originalWeight, double maxDocRatio) {
  public static final int DEFAULT_DOCS = Rm3Rewriter.DEFAULT_FB_DOCS;
  public static final int DEFAULT_TERMS = Rm3Rewriter.DEFAULT_FB_TERMS;
  public static final double DEFAULT_ORIGINAL_WEIGHT = 0.7;
  public static final double DEFAULT_MAX_DOC_RATIO = 0.2;
  public static final LexicalFeedback OFF = new LexicalFeedback(0, DEFAULT_TERMS, DEFAULT_ORIGINAL_WEIGHT);
  public static final LexicalFeedback DEFAULT =
      new LexicalFeedback(DEFAULT_DOCS, DEFAULT_TERMS, DEFAULT_ORIGINAL_WEIGHT);

  public LexicalFeedback {
    if (docs < 0) {
      throw new SettingException(Setting.LEXICAL_FEEDBACK_DOCS, " must be >= 0, was " + docs);
    }
    if (terms < 1) {
      throw new ConfigException("hybrid feedback terms must be >= 1, was " + terms);
    }
    if (!(originalWeight >= 0 && originalWeight <= 1)) {
      throw new SettingException(Setting.LEXICAL_FEEDBACK_ORIGINAL_WEIGHT, " must be in [0, 1], was " + originalWeight);
    }
    if (!(maxDocRatio > 0 && maxDocRatio <= 1)) {
      throw new SettingException(Setting.LEXICAL_FEEDBACK_MAX_DOC_RATIO, " must be in (0, 1], was " + maxDocRatio);
    }
  }

  /** With the default {@link #DEFAULT_MAX_DOC_RATIO}. */
  public LexicalFeedback(int docs, int terms, double originalWeight) {
    this(docs, terms, originalWeight, DEFAULT_MAX_DOC_RATIO);
  }

  /** Off when no chunks feed it, or when the original query keeps all the weight. */
  public boolean enabled() {
    return docs > 0 && originalWeight < 1;
  }

  /**
   * The query's BM25 terms expanded from {@code feedbackTexts} (best first; only the first {@link
   * #docs()} are used), analysed with {@code analyzer}. A query with no terms comes back unexpanded
   * ({@link Rm3Rewriter} checks), so callers need not.
   *
   * @param docRatio the fraction of the snapshot's chunks holding an analysed term
   */
  public RewrittenQuery expand(String query, List<String> feedbackTexts,
      Function<String, Map<String, Integer>> analyzer, ToDoubleFunction<String> docRatio) {
    List<String> fb = feedbackTexts.size() > docs ? feedbackTexts.subList(0, docs) : feedbackTexts;
    RewriteContext context = new RewriteContext() {
      @Override
      public Map<String, Integer> analyze(String text) {
        return analyzer.apply(text);
      }

      @Override
      public List<String> firstPassTexts(String q, int n) {
        return fb.size() > n ? fb.subList(0, n) : fb;
      }

      @Override
      public double docRatio(String term) {
        return docRatio.applyAsDouble(term);
      }
    };
    return new Rm3Rewriter(Math.max(docs, 1), terms, (float) originalWeight, maxDocRatio).rewrite(query, context);
  }

  /** For the start-up log. */
  public String describe() {
    return enabled() ? "rm3 from the fused top " + docs + " (" + terms + " terms, original weight "
        + originalWeight + (maxDocRatio < 1 ? ", none in over " + maxDocRatio + " of the chunks" : "") + ")"
        : "off";
  }
}
