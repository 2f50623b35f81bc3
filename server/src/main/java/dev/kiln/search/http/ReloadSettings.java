package dev.kiln.search.http;

import dev.kiln.snapshot.Verification;
import java.util.concurrent.Executor;

/**
 * How a {@link ReloadingSearcher} follows {@code CURRENT} and checks what it serves.
 *
 * @param pollMillis how often to check {@code CURRENT}; 0 disables polling ({@link ReloadingSearcher#checkNow()})
 * @param verification what is hashed when a snapshot is opened ({@code --verify})
 * @param verifier where the background verification of each served snapshot runs; {@code null}: a
 *     thread of the searcher's own, one snapshot at a time
 */
public record ReloadSettings(long pollMillis, Verification verification, Executor verifier) {
  public static final long DEFAULT_POLL_MILLIS = 1000;

  public ReloadSettings {
    if (pollMillis < 0) {
      throw new IllegalArgumentException("poll interval must be >= 0 ms, was " + pollMillis);
    }
    if (verification == null) {
      verification = Verification.RECORD;
    }
  }

  /** Polls every {@code pollMillis}; the other settings at their defaults. */
  public static ReloadSettings polling(long pollMillis) {
    return new ReloadSettings(pollMillis, Verification.RECORD, null);
  }

  public ReloadSettings withVerification(Verification value) {
    return new ReloadSettings(pollMillis, value, verifier);
  }

  public ReloadSettings withVerifier(Executor value) {
    return new ReloadSettings(pollMillis, verification, value);
  }
}
