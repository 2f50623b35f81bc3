package dev.kiln.snapshot.io;

import dev.kiln.snapshot.SnapshotStorage.LockedAction;
import dev.kiln.snapshot.StagingMarker;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock of an S3 snapshots root ({@code KEY.lock}), which publish, rollback and gc hold: an object
 * created with {@code If-None-Match: *} (exclusive on S3 and s3proxy; {@link S3SnapshotStorage#tryCreate}),
 * whose body names its holder with a random nonce, so that a create retried after a lost answer
 * recognises its own lock. A lock older than {@link #STALE_LOCK} is a crashed holder's and is taken over.
 * Without conditional writes the lock is best effort (exists, then PUT). Re-entrant per thread.
 */
final class S3Lock {
  private static final Logger LOG = LoggerFactory.getLogger(S3Lock.class);

  /** A lock object this old belongs to a process that died holding it. */
  static final Duration STALE_LOCK = Duration.ofMinutes(10);
  private static final Duration LOCK_WAIT = Duration.ofSeconds(60);

  private final S3SnapshotStorage storage;
  private final ThreadLocal<Set<String>> held = ThreadLocal.withInitial(HashSet::new);

  S3Lock(S3SnapshotStorage storage) {
    this.storage = storage;
  }

  <T> T locked(String key, LockedAction<T> action) throws IOException {
    String lockKey = key + ".lock";
    if (held.get().contains(lockKey)) {
      return action.run();
    }
    acquire(lockKey);
    held.get().add(lockKey);
    try {
      return action.run();
    } finally {
      held.get().remove(lockKey);
      storage.delete(lockKey);
    }
  }

  private void acquire(String lockKey) throws IOException {
    // Unique to this acquisition (the nonce): a retried create that finds this body knows it is its own.
    StagingMarker me = StagingMarker.forThisProcess("lock", null);
    byte[] owner = (me.pid() + "@" + me.host() + " " + Instant.now() + " " + me.nonce())
        .getBytes(StandardCharsets.UTF_8);
    long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
    boolean logged = false;
    while (true) {
      if (storage.tryCreate(lockKey, owner)) {
        return;
      }
      long modified = storage.lastModified(lockKey);
      if (modified >= 0 && System.currentTimeMillis() - modified > STALE_LOCK.toMillis()) {
        LOG.warn("lock {} is older than {}: taking it over from a crashed holder", lockKey, STALE_LOCK);
        storage.delete(lockKey);
        continue;
      }
      if (!logged) {
        LOG.info("waiting for the lock {}/{} (another publish, rollback or gc holds it)", storage.root(), lockKey);
        logged = true;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("lock " + storage.root() + "/" + lockKey + " is held by another publisher for more than "
            + LOCK_WAIT.toSeconds() + " s (" + new String(storage.read(lockKey, 4096).orElse(new byte[0]),
                StandardCharsets.UTF_8) + "); if no build, publish, rollback or gc is running, delete it");
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted waiting for " + lockKey);
      }
    }
  }
}
