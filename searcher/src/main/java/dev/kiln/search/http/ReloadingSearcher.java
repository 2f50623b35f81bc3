package dev.kiln.search.http;

import dev.kiln.search.SearchOptions;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.SnapshotStore;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Executors;
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
 * <p>A snapshot that fails to open is logged and retried at the next check; the old one keeps
 * serving. Thread-safe.
 */
public final class ReloadingSearcher implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingSearcher.class);

  private final Path root;
  private final SearchOptions options;
  private final SnapshotStore store;
  private final ScheduledExecutorService poller;
  private final AtomicLong reloads = new AtomicLong();
  private final AtomicLong failedReloads = new AtomicLong();
  private volatile Lease current;
  private volatile boolean closed;

  /**
   * Opens the current snapshot.
   *
   * @param pollMillis how often to check {@code CURRENT}; 0 disables polling ({@link #checkNow()})
   */
  public ReloadingSearcher(Path root, SearchOptions options, long pollMillis) {
    this.root = root;
    this.options = options;
    this.store = new SnapshotStore(root);
    this.current = new Lease(Searcher.open(root, null, options));
    if (pollMillis > 0) {
      poller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kiln-snapshot-watch");
        t.setDaemon(true);
        return t;
      });
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

  public long failedReloads() {
    return failedReloads.get();
  }

  /** Swaps in the snapshot {@code CURRENT} names if it changed; returns whether it swapped. */
  public synchronized boolean checkNow() {
    if (closed) {
      return false;
    }
    String id = store.currentId();
    if (id.equals(current.searcher.snapshotId())) {
      return false;
    }
    Searcher next = Searcher.open(root, id, options);
    Lease old = current;
    current = new Lease(next);
    old.release(); // the owner's reference: closes now or when the last query finishes
    reloads.incrementAndGet();
    LOG.info("reloaded: now serving snapshot {} (was {})", id, old.searcher.snapshotId());
    return true;
  }

  private void checkQuietly() {
    try {
      checkNow();
    } catch (RuntimeException e) {
      failedReloads.incrementAndGet();
      LOG.warn("snapshot reload failed, still serving {}: {}", currentId(), e.getMessage());
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (poller != null) {
      poller.shutdownNow();
    }
    current.release();
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
