package dev.kiln.search.http;

import dev.kiln.search.SearchOptions;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.SnapshotException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows {@code CURRENT}: when it names another snapshot, the new one is opened (and verified)
 * beside the old, swapped in atomically, and the old one is closed once the last query that
 * acquired it has released it. Queries never see a closed searcher and never wait for a reload.
 *
 * <p>A snapshot that fails to open is logged and counted ({@link #reloadStatus()}), the old one keeps
 * serving, and the same id is not tried again before a back-off that doubles with each failure (from
 * the poll interval up to {@link #MAX_BACKOFF}); a different id in {@code CURRENT} is tried at once.
 * The poller survives any throwable (an {@link Error} would otherwise cancel it for good). Thread-safe.
 *
 * <p>The snapshot comes from a {@link SnapshotSource}: a local root, or a remote one whose snapshots
 * are downloaded and verified into a local cache before they are opened. That download can take
 * minutes, so it runs outside the lock that {@link #reloadStatus()} (and so {@code /health}) takes.
 */
public final class ReloadingSearcher implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingSearcher.class);

  private final SnapshotSource source;
  private final SearchOptions options;
  /** Serialises checks: one download and open at a time. The failure state and the swap use {@code this}. */
  private final Object checkLock = new Object();
  private final ScheduledExecutorService poller;
  private final AtomicLong reloads = new AtomicLong();
  private final AtomicLong failedReloads = new AtomicLong();
  private final AtomicLong attempts = new AtomicLong();
  private final AtomicLong checks = new AtomicLong();
  private final long backoffBase;
  private volatile Lease current;
  private volatile boolean closed;
  // Failure state, guarded by this.
  private String previousId;
  private long consecutive;
  private String failingId;
  private String lastError;
  private Instant failingSince;
  private Instant lastFailure;
  private Instant nextAttempt;

  /** Longest wait before the same broken snapshot is tried again. */
  public static final Duration MAX_BACKOFF = Duration.ofMinutes(5);

  /**
   * Opens the current snapshot.
   *
   * @param pollMillis how often to check {@code CURRENT}; 0 disables polling ({@link #checkNow()})
   */
  public ReloadingSearcher(Path root, SearchOptions options, long pollMillis) {
    this(SnapshotSource.local(root), options, pollMillis);
  }

  /**
   * Opens the snapshot {@code source}'s {@code CURRENT} names (a remote source downloads it first).
   *
   * @param pollMillis how often to check {@code CURRENT}; 0 disables polling ({@link #checkNow()})
   */
  public ReloadingSearcher(SnapshotSource source, SearchOptions options, long pollMillis) {
    this.source = source;
    this.options = options;
    String id = source.currentId();
    this.current = new Lease(Searcher.builder().root(prepare(id)).snapshot(id).options(options).build());
    swapped(id, null);
    this.backoffBase = Math.max(pollMillis, 100);
    if (pollMillis > 0) {
      poller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kiln-snapshot-watch");
        t.setDaemon(true);
        return t;
      });
      // checkQuietly catches everything, so the schedule never ends with a failure to look at.
      Future<?> unused =
          poller.scheduleWithFixedDelay(this::checkQuietly, pollMillis, pollMillis, TimeUnit.MILLISECONDS);
    } else {
      poller = null;
    }
  }

  /** A searcher that stays open until the lease is closed; close it in a try-with-resources. */
  public Lease acquire() {
    while (true) {
      Lease l = current;
      if (closed) {
        throw new IllegalStateException("the service is shutting down");
      }
      if (l.retain()) {
        return l;
      }
      // Lost a race with a swap that released l's last reference: the new one is installed.
    }
  }

  public String currentId() {
    return current.searcher.snapshotId();
  }

  public long reloads() {
    return reloads.get();
  }

  /** Where reloading stands: served snapshot, failures, last error, next attempt. */
  public synchronized ReloadStatus reloadStatus() {
    return new ReloadStatus(currentId(), reloads.get(), failedReloads.get(), consecutive, checks.get(), attempts.get(),
        failingId,
        lastError, failingSince, lastFailure, nextAttempt);
  }

  /**
   * Swaps in the snapshot {@code CURRENT} names if it changed; returns whether it swapped. A failure
   * is recorded and rethrown; the id that failed is not tried again until its back-off has passed
   * (the call then returns false).
   */
  public boolean checkNow() {
    synchronized (checkLock) {
      if (closed) {
        return false;
      }
      checks.incrementAndGet();
      String id;
      try {
        id = source.currentId();
      } catch (RuntimeException | Error e) {
        failed(null, e, false);
        throw e;
      }
      String serving = current.searcher.snapshotId();
      synchronized (this) {
        if (id.equals(serving)) {
          if (consecutive > 0) {
            LOG.info("CURRENT names the served snapshot {} again: reload failures cleared", id);
            clearFailures();
          }
          return false;
        }
        if (id.equals(failingId) && nextAttempt != null && Instant.now().isBefore(nextAttempt)) {
          return false; // backing off: this snapshot failed to open, do not fetch (and hash) it every poll
        }
      }
      attempts.incrementAndGet();
      Searcher next;
      try {
        next = Searcher.builder().root(prepare(id)).snapshot(id).options(options).build();
      } catch (RuntimeException | Error e) {
        failed(id, e, true);
        throw e;
      }
      Lease old;
      synchronized (this) {
        if (closed) {
          new Lease(next).release();
          return false;
        }
        old = current;
        current = new Lease(next);
        clearFailures();
      }
      old.release(); // the owner's reference: closes now or when the last query finishes
      reloads.incrementAndGet();
      LOG.info("reloaded: now serving snapshot {} (was {})", id, serving);
      swapped(id, serving);
      return true;
    }
  }

  private Path prepare(String id) {
    try {
      return source.prepare(id);
    } catch (IOException e) {
      throw new SnapshotException("cannot fetch snapshot " + id + " from " + source + ": " + e.getMessage(), e);
    }
  }

  /** Tells the source what is served now; a cache that fails to tidy up is no reason to fail a reload. */
  private void swapped(String serving, String previous) {
    synchronized (this) {
      previousId = previous;
    }
    try {
      source.swapped(serving, previous);
    } catch (RuntimeException e) {
      LOG.warn("after swapping to snapshot {}: {}", serving, e.toString());
    }
  }

  /** The snapshot served before the current one, or null. */
  public synchronized String previousId() {
    return previousId;
  }

  private synchronized void failed(String id, Throwable e, boolean backOff) {
    failedReloads.incrementAndGet();
    Instant now = Instant.now();
    if (consecutive == 0 || !Objects.equals(id, failingId)) {
      failingSince = now;
      consecutive = 0;
    }
    consecutive++;
    failingId = id;
    lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
    lastFailure = now;
    long delay = backOff ? Math.min(MAX_BACKOFF.toMillis(), backoffBase << Math.min(consecutive - 1, 20)) : 0;
    nextAttempt = now.plusMillis(delay);
  }

  private void clearFailures() {
    consecutive = 0;
    failingId = null;
    lastError = null;
    failingSince = null;
    lastFailure = null;
    nextAttempt = null;
  }

  /** The poller's task: nothing may escape it, or the executor cancels it and reloading stops for good. */
  private void checkQuietly() {
    try {
      checkNow();
    } catch (Throwable e) {
      ReloadStatus s = reloadStatus();
      LOG.warn("snapshot reload failed ({} in a row), still serving {}; next attempt at {}: {}", s.consecutiveFailures(),
          s.serving(), s.nextAttempt(), e.toString());
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      current.release();
    }
    if (poller != null) {
      poller.shutdownNow(); // interrupts a download in progress; its searcher is closed, never swapped in
    }
  }

  /** A reference-counted searcher; the swap holds one reference, each query another. */
  public static final class Lease implements AutoCloseable {
    private final Searcher searcher;
    private final AtomicInteger refs = new AtomicInteger(1);

    Lease(Searcher searcher) {
      this.searcher = searcher;
    }

    public Searcher searcher() {
      return searcher;
    }

    boolean retain() {
      while (true) {
        int n = refs.get();
        if (n == 0) {
          return false;
        }
        if (refs.compareAndSet(n, n + 1)) {
          return true;
        }
      }
    }

    void release() {
      if (refs.decrementAndGet() == 0) {
        try {
          searcher.close();
          LOG.info("closed snapshot {}", searcher.snapshotId());
        } catch (IOException e) {
          LOG.warn("closing snapshot {} failed: {}", searcher.snapshotId(), e.getMessage());
        }
      }
    }

    @Override
    public void close() {
      release();
    }
  }
}
