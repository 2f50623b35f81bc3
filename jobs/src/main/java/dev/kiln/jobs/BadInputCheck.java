package dev.kiln.jobs;

import dev.kiln.operators.QuarantineSummary;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Decides whether a build had too much bad input to publish: it fails when quarantined records exceed
 * {@code ingest.max-bad-fraction} of the records read, naming the sources with most bad records so
 * the user knows where to look, and where the quarantined records were written.
 */
final class BadInputCheck {
  private BadInputCheck() {}

  /** Thrown when the bad fraction is over the limit; the build fails (exit 1) and nothing is published. */
  static final class TooMuchBadInputException extends RuntimeException {
    TooMuchBadInputException(String message) {
      super(message);
    }
  }

  static void check(long read, long quarantined, double maxFraction, QuarantineSummary summary,
      String location) {
    if (read == 0 || quarantined == 0) {
      return;
    }
    double fraction = (double) quarantined / read;
    if (fraction <= maxFraction) {
      return;
    }
    List<Map.Entry<String, Long>> worst = summary.bySource().entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
            .thenComparing(Map.Entry.comparingByKey()))
        .limit(5).toList();
    String sources = worst.stream().map(e -> e.getKey() + " (" + e.getValue() + ")")
        .collect(Collectors.joining(", "));
    throw new TooMuchBadInputException(String.format(Locale.ROOT,
        "too much bad input: %d of %d records quarantined (%.2f%%), over ingest.max-bad-fraction %.4f;"
            + " worst sources: %s; reasons: %s; quarantined records are in %s",
        quarantined, read, 100.0 * fraction, maxFraction, sources, summary.byReason(), location));
  }
}
