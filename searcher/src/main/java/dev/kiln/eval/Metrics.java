package dev.kiln.eval;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Ranking metrics over one query, computed as trec_eval (and so BEIR's pytrec_eval) does.
 *
 * <p>{@code ranked} holds document ids best first; an id repeated later in the list is ignored, so
 * a document is credited once. {@code grades} maps judged documents to their relevance grade;
 * unjudged documents are non-relevant. Grades above zero are relevant; nDCG uses the grade itself
 * as the gain (negative grades count as zero).
 */
public final class Metrics {
  private Metrics() {}

  /**
   * nDCG@k with linear gains: {@code DCG = Σ_{i=1..k} grade_i / log2(i + 1)}, divided by the DCG of
   * the judged grades sorted best first. 0 when no judged document has a positive grade.
   */
  public static double ndcgAt(int k, List<String> ranked, Map<String, Integer> grades) {
    List<String> top = topK(k, ranked);
    double dcg = 0;
    for (int i = 0; i < top.size(); i++) {
      dcg += gain(grades.get(top.get(i))) / log2(i + 2);
    }
    int[] ascending = grades.values().stream().mapToInt(Metrics::gain).filter(g -> g > 0)
        .sorted().toArray();
    double ideal = 0;
    for (int i = 0; i < Math.min(k, ascending.length); i++) {
      ideal += ascending[ascending.length - 1 - i] / log2(i + 2);
    }
    return ideal == 0 ? 0 : dcg / ideal;
  }

  /** Recall@k: relevant documents in the top k over all relevant documents; 0 if none are relevant. */
  public static double recallAt(int k, List<String> ranked, Map<String, Integer> grades) {
    List<String> top = topK(k, ranked);
    long relevant = grades.values().stream().filter(g -> g != null && g > 0).count();
    if (relevant == 0) {
      return 0;
    }
    long found = top.stream().filter(doc -> isRelevant(grades.get(doc))).count();
    return (double) found / relevant;
  }

  /** Reciprocal rank of the first relevant document within the top k; 0 if there is none. */
  public static double mrrAt(int k, List<String> ranked, Map<String, Integer> grades) {
    List<String> top = topK(k, ranked);
    for (int i = 0; i < top.size(); i++) {
      if (isRelevant(grades.get(top.get(i)))) {
        return 1.0 / (i + 1);
      }
    }
    return 0;
  }

  /** 1 when at least one relevant document is within the top k, else 0 (Hit@k, success@k). */
  public static double hitAt(int k, List<String> ranked, Map<String, Integer> grades) {
    return mrrAt(k, ranked, grades) > 0 ? 1.0 : 0.0;
  }

  /** The first k distinct ids. */
  private static List<String> topK(int k, List<String> ranked) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1, was " + k);
    }
    Set<String> top = new LinkedHashSet<>();
    for (String doc : ranked) {
      if (top.size() == k) {
        break;
      }
      top.add(doc);
    }
    return new ArrayList<>(top);
  }

  private static boolean isRelevant(Integer grade) {
    return grade != null && grade > 0;
  }

  private static int gain(Integer grade) {
    return grade == null ? 0 : Math.max(0, grade);
  }

  private static double log2(int x) {
    return Math.log(x) / Math.log(2);
  }
}
