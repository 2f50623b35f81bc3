package dev.kiln.operators;

import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one quarantine writer wrote: the file, and counts by reason and by source file. The client
 * merges the writers' summaries into the manifest's {@code quarantine} block and the failure message.
 */
public record QuarantineSummary(String file, Map<String, Long> byReason, Map<String, Long> bySource)
    implements Serializable {

  /** Merges summaries of all writers; {@code file} of the result is unused. */
  public static QuarantineSummary merge(Iterable<QuarantineSummary> parts) {
    Map<String, Long> reasons = new TreeMap<>();
    Map<String, Long> sources = new TreeMap<>();
    for (QuarantineSummary s : parts) {
      s.byReason().forEach((k, v) -> reasons.merge(k, v, Long::sum));
      s.bySource().forEach((k, v) -> sources.merge(k, v, Long::sum));
    }
    return new QuarantineSummary(null, reasons, sources);
  }

  public long total() {
    return byReason.values().stream().mapToLong(Long::longValue).sum();
  }
}
