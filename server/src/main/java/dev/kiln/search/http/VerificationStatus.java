package dev.kiln.search.http;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Where the full verification of the served snapshot stands, for {@code /health}: every file a
 * searcher reads hashed against the manifest, at open ({@code --verify full}, or no {@code VERIFIED}
 * record vouched for the files) or in the background after it.
 *
 * @param snapshot the snapshot verified
 * @param error what failed (the files named), or null
 * @param finished when the verification ended, or null while it has not
 */
public record VerificationStatus(String snapshot, State state, long files, long bytes, String error,
    Instant finished) {
  /** How far it got. */
  public enum State {
    /** Every file was hashed when the snapshot was opened. */
    VERIFIED_AT_OPEN,
    /** Waiting for the background thread. */
    PENDING,
    RUNNING,
    /** Every file hashed in the background and matched. */
    VERIFIED,
    /** A file did not match: the snapshot is no longer served. */
    FAILED;

    String key() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  static VerificationStatus of(String snapshot, State state) {
    return new VerificationStatus(snapshot, state, 0, 0, null, state == State.VERIFIED_AT_OPEN ? Instant.now() : null);
  }

  public boolean failed() {
    return state == State.FAILED;
  }

  /** JSON-friendly view (nulls left out), the error included: for {@code /snapshot}. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = summary();
    if (error != null) {
      m.put("error", error);
    }
    return m;
  }

  /** What {@code /health} shows anyone: state and counts, not the error, which names files. */
  public Map<String, Object> summary() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("snapshot", snapshot);
    m.put("state", state.key());
    if (state == State.VERIFIED || state == State.FAILED) {
      m.put("files", files);
      m.put("bytes", bytes);
    }
    if (finished != null) {
      m.put("finished", finished.toString());
    }
    return m;
  }
}
