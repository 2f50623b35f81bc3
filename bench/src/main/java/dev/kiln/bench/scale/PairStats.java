package dev.kiln.bench.scale;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark protocol's summary of a per-pair measure (docs/results/README.md, rule 1): every
 * pair's value in run order, their median and their range, and the target it is judged by, if any.
 */
final class PairStats {
  private PairStats() {}

  /** {@code target}: the most the measure may be where a target bounds it, else null. */
  static Map<String, Object> of(List<Double> perPair, Double target) {
    List<Double> sorted = new ArrayList<>(perPair);
    Collections.sort(sorted);
    int n = sorted.size();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("per_pair", perPair);
    out.put("median", n == 0 ? null : n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2);
    out.put("min", n == 0 ? null : sorted.get(0));
    out.put("max", n == 0 ? null : sorted.get(n - 1));
    if (target != null) {
      out.put("target_at_most", target);
    }
    return out;
  }
}
