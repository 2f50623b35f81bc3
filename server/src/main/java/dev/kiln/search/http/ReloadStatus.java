package dev.kiln.search.http;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How snapshot reloading stands, for {@code /health} and {@code /metrics}: what is served (null:
 * nothing, see {@link SnapshotUnavailable}), when {@code CURRENT} was last read successfully, how the
 * served snapshot's full verification stands, and — while reloads fail — which snapshot fails, since
 * when, how often, the last error and when the next attempt is due.
 *
 * @param failures reload failures since start
 * @param consecutiveFailures failures since the last successful reload (0: healthy)
 * @param checks times {@code CURRENT} was checked
 * @param attempts snapshot opens tried by reloads (successful or not)
 * @param failingSnapshot the id that failed to open or to verify, or null (CURRENT itself unreadable, or healthy)
 * @param lastCheckOk when a check last read {@code CURRENT} successfully
 * @param verification the served (or last failed) snapshot's full verification, or null
 */
public record ReloadStatus(String serving, long reloads, long failures, long consecutiveFailures, long checks,
    long attempts,
    String failingSnapshot, String lastError, Instant failingSince, Instant lastFailure, Instant nextAttempt,
    Instant lastCheckOk, VerificationStatus verification) {

  public boolean healthy() {
    return consecutiveFailures == 0;
  }

  /** JSON-friendly view (nulls left out), the last error included: for {@code /snapshot}. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = summary();
    put(m, "last_error", lastError);
    if (verification != null) {
      m.put("verification", verification.toMap());
    }
    return m;
  }

  /**
   * What {@code /health} shows anyone: counts, ids and times, but not the last error, whose text names
   * paths, hosts and exceptions.
   */
  public Map<String, Object> summary() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("healthy", healthy());
    m.put("reloads", reloads);
    m.put("failures", failures);
    m.put("consecutive_failures", consecutiveFailures);
    put(m, "failing_snapshot", failingSnapshot);
    put(m, "failing_since", failingSince);
    put(m, "last_failure", lastFailure);
    put(m, "next_attempt", nextAttempt);
    put(m, "last_check_ok", lastCheckOk);
    if (lastCheckOk != null) {
      m.put("last_check_ok_seconds_ago", lastCheckOkSecondsAgo());
    }
    if (verification != null) {
      m.put("verification", verification.summary());
    }
    return m;
  }

  /** Seconds since {@code CURRENT} was last read successfully, to the millisecond. */
  public double lastCheckOkSecondsAgo() {
    return lastCheckOk == null ? Double.NaN
        : Math.max(0, Duration.between(lastCheckOk, Instant.now()).toMillis()) / 1000.0;
  }

  private static void put(Map<String, Object> m, String k, Object v) {
    if (v != null) {
      m.put(k, v.toString());
    }
  }

  /** Prometheus text lines. */
  public String prometheus() {
    return "# HELP kiln_snapshot_reload_failures_total Snapshot reloads that failed.\n"
        + "# TYPE kiln_snapshot_reload_failures_total counter\n"
        + "kiln_snapshot_reload_failures_total " + failures + "\n"
        + "# HELP kiln_snapshot_reload_failing 1 while the latest reload attempt failed.\n"
        + "# TYPE kiln_snapshot_reload_failing gauge\n"
        + "kiln_snapshot_reload_failing " + (healthy() ? 0 : 1) + "\n"
        + "# HELP kiln_snapshot_reload_consecutive_failures Failures since the last successful reload.\n"
        + "# TYPE kiln_snapshot_reload_consecutive_failures gauge\n"
        + "kiln_snapshot_reload_consecutive_failures " + consecutiveFailures + "\n"
        + "# HELP kiln_snapshot_check_age_seconds Seconds since CURRENT was last read successfully.\n"
        + "# TYPE kiln_snapshot_check_age_seconds gauge\n"
        + "kiln_snapshot_check_age_seconds " + lastCheckOkSecondsAgo() + "\n"
        + "# HELP kiln_snapshot_verification_failed 1 while the served snapshot's last full verification failed.\n"
        + "# TYPE kiln_snapshot_verification_failed gauge\n"
        + "kiln_snapshot_verification_failed " + (verification != null && verification.failed() ? 1 : 0) + "\n";
  }
}
