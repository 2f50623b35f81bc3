package dev.kiln.search.http;

import dev.kiln.search.ShardSelection;
import dev.kiln.snapshot.Verification;
import java.util.concurrent.Executor;

/**
 * How a {@link ReloadingSearcher} follows {@code CURRENT} and checks what it serves.
 *
 * @param pollMillis how often to check {@code CURRENT}; 0 disables polling ({@link ReloadingSearcher#checkNow()})
 * @param checkTimeoutMillis how long one read of {@code CURRENT} may take before the check is abandoned
 *     (a hung network mount); while an abandoned read has not returned, no other starts
 * @param verification what is hashed when a snapshot is opened ({@code --verify})
 * @param verifier where the background verification of each served snapshot runs; {@code null}: a
 *     thread of the searcher's own, one snapshot at a time
 * @param shards the shards of each snapshot to open ({@code --shards}; a shard group behind a router)
 */
public record ReloadSettings(long pollMillis, long checkTimeoutMillis, Verification verification, Executor verifier,
    ShardSelection shards) {
  public static final long DEFAULT_POLL_MILLIS = 1000;
  public static final long DEFAULT_CHECK_TIMEOUT_MILLIS = 10_000;

  public ReloadSettings {
    if (pollMillis < 0) {
      throw new IllegalArgumentException("poll interval must be >= 0 ms, was " + pollMillis);
    }
    if (checkTimeoutMillis < 1) {
      throw new IllegalArgumentException("check timeout must be >= 1 ms, was " + checkTimeoutMillis);
    }
    if (verification == null) {
      verification = Verification.RECORD;
    }
    if (shards == null) {
      shards = ShardSelection.ALL;
    }
  }

  /** Every shard: a server over the whole snapshot. */
  public ReloadSettings(long pollMillis, long checkTimeoutMillis, Verification verification, Executor verifier) {
    this(pollMillis, checkTimeoutMillis, verification, verifier, ShardSelection.ALL);
  }

  /** Polls every {@code pollMillis}; the other settings at their defaults. */
  public static ReloadSettings polling(long pollMillis) {
    return new ReloadSettings(pollMillis, DEFAULT_CHECK_TIMEOUT_MILLIS, Verification.RECORD, null);
  }

  public ReloadSettings withCheckTimeoutMillis(long value) {
    return new ReloadSettings(pollMillis, value, verification, verifier, shards);
  }

  public ReloadSettings withVerification(Verification value) {
    return new ReloadSettings(pollMillis, checkTimeoutMillis, value, verifier, shards);
  }

  public ReloadSettings withVerifier(Executor value) {
    return new ReloadSettings(pollMillis, checkTimeoutMillis, verification, value, shards);
  }

  public ReloadSettings withShards(ShardSelection value) {
    return new ReloadSettings(pollMillis, checkTimeoutMillis, verification, verifier, value);
  }
}
