package dev.kiln.search.http;

import dev.kiln.search.SearchOptions;
import dev.kiln.search.Searcher;
import dev.kiln.search.ShardSelection;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.SnapshotVerifier;
import dev.kiln.snapshot.Verification;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
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
 * <p>A snapshot opened on the word of its {@code VERIFIED} record (files whose identity is unchanged
 * since they were verified are not hashed at open) is verified in full in the background, on one
 * thread ({@link ReloadSettings#verifier()}). If a file does not match, the snapshot stops being
 * served at once, its record is removed, and the snapshot served before it is opened again — every
 * file hashed — and served in its place; if there is none, or it fails too, nothing is served and
 * queries get {@link SnapshotUnavailable}. The failed snapshot is opened again only with every file
 * hashed, after the usual back-off.
 *
 * <p>The snapshot comes from a {@link SnapshotSource}: a local root, or a remote one whose snapshots
 * are downloaded and verified into a local cache before they are opened. That download can take
 * minutes, so it runs outside the lock that {@link #reloadStatus()} (and so {@code /health}) takes.
 *
 * <p>This class coordinates; the parts live beside it: {@link HeldSnapshots} (what queries lease, the
 * retired snapshot's grace), {@link ReloadChecks} (reading and polling {@code CURRENT}, whether to
 * switch, counts and back-off), {@link BackgroundVerification} and {@link SnapshotOpener}.
 */
public final class ReloadingSearcher implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingSearcher.class);

  private final SnapshotSource source;
  private final SearchOptions options;
  private final ReloadSettings settings;
  /**
   * Serialises checks: one download and open at a time. What {@link #reloadStatus()} must see change
   * together (a swap and its count, a snapshot taken out and why) changes under {@code this}.
   */
  private final Object checkLock = new Object();
  private final SnapshotOpener opener;
  /** Reads and polls {@code CURRENT}, decides what to open, and keeps the counts and back-off. */
  private final ReloadChecks checks;
  /** The served snapshot and, on a shard group, the one served before it: what queries lease. */
  private final HeldSnapshots held;
  private final BackgroundVerification verification;
  /** Guarded by this. */
  private String previousId;

  /**
   * How long the previous snapshot stays open after a swap for requests that name it ({@link
   * #acquire(String)}) on a shard group ({@link ReloadSettings#shards()} not all): the time a router
   * needs to see every shard group on the new one.
   */
  public static final Duration PREVIOUS_GRACE = Duration.ofSeconds(30);

  /** Longest wait before the same broken snapshot is tried again. */
  public static final Duration MAX_BACKOFF = Duration.ofMinutes(5);

  /**
   * Opens the current snapshot.
   *
   * @param pollMillis how often to check {@code CURRENT}; 0 disables polling ({@link #checkNow()})
   */
  public ReloadingSearcher(Path root, SearchOptions options, long pollMillis) {
    this(SnapshotSource.local(root), options, ReloadSettings.polling(pollMillis));
  }

  /** Opens the current snapshot of a local root and follows it as {@code settings} say. */
  public ReloadingSearcher(Path root, SearchOptions options, ReloadSettings settings) {
    this(SnapshotSource.local(root), options, settings);
  }

  /**
   * Opens the snapshot {@code source}'s {@code CURRENT} names (a remote source downloads it first).
   *
   * @param pollMillis how often to check {@code CURRENT}; 0 disables polling ({@link #checkNow()})
   */
  public ReloadingSearcher(SnapshotSource source, SearchOptions options, long pollMillis) {
    this(source, options, ReloadSettings.polling(pollMillis));
  }

  /** Opens the snapshot {@code source}'s {@code CURRENT} names and follows it as {@code settings} say. */
  public ReloadingSearcher(SnapshotSource source, SearchOptions options, ReloadSettings settings) {
    this.source = source;
    this.options = options;
    this.settings = settings;
    this.opener = new SnapshotOpener(source, options, settings.shards());
    this.checks = new ReloadChecks(source, settings, daemon("kiln-current-read"));
    Lease first;
    try {
      first = opener.open(checks.read(), settings.verification());
    } catch (RuntimeException | Error e) {
      checks.close();
      throw e;
    }
    checks.readOk();
    this.held = new HeldSnapshots(first);
    this.verification = new BackgroundVerification(settings.verifier(), daemon("kiln-snapshot-verify"), held,
        this::failedVerification);
    swapped(first.id(), null);
    verification.start(first);
    if (settings.pollMillis() > 0) {
      // checkQuietly catches everything, so the schedule never ends with a failure to look at.
      checks.startPolling(this::checkQuietly, settings.pollMillis(), daemon("kiln-snapshot-watch"));
    }
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, n.incrementAndGet() == 1 ? name : name + "-" + n.get());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * A searcher that stays open until the lease is closed; close it in a try-with-resources.
   *
   * @throws SnapshotUnavailable when no snapshot can be served (the served one failed verification
   *     and no earlier one could take its place)
   */
  public Lease acquire() {
    return held.acquire();
  }

  /**
   * A lease on snapshot {@code id}: the served one, or the one served before it while its grace
   * period lasts. A shard group answers a router's phases on the snapshot the router chose.
   *
   * @throws SnapshotNotHeld when neither is {@code id}
   */
  public Lease acquire(String id) {
    return held.acquire(id);
  }

  /** The snapshots open for {@link #acquire(String)}: the served one first, then a retired one. */
  public List<String> held() {
    return held.held();
  }

  /** The snapshots root followed, as it was named (a URI or a local path): a router's root check. */
  public String rootName() {
    return source.toString();
  }

  /** The shards of each snapshot this opens ({@code --shards}). */
  public ShardSelection shards() {
    return settings.shards();
  }

  /** The served snapshot's id, or null while nothing is served. */
  public String currentId() {
    return held.currentId();
  }

  public long reloads() {
    return checks.reloads();
  }

  public long failedReloads() {
    return checks.failedReloads();
  }

  /** Where reloading stands: served snapshot, last good check, verification, failures, next attempt. */
  public synchronized ReloadStatus reloadStatus() {
    return checks.status(currentId(), verification.status());
  }

  /**
   * Swaps in the snapshot {@code CURRENT} names if it changed; returns whether it swapped. A failure
   * is recorded and rethrown; the id that failed is not tried again until its back-off has passed
   * (the call then returns false).
   */
  public boolean checkNow() {
    synchronized (checkLock) {
      if (held.closed()) {
        return false;
      }
      checks.counted();
      held.expireRetired(false);
      String id;
      try {
        id = checks.read();
      } catch (RuntimeException | Error e) {
        checks.failed(null, e, false);
        throw e;
      }
      String serving = currentId();
      Verification verify = checks.decide(id, serving, settings.verification());
      if (verify == null) {
        return false;
      }
      Lease next;
      try {
        next = opener.open(id, verify);
      } catch (RuntimeException | Error e) {
        checks.failed(id, e, true);
        throw e;
      }
      HeldSnapshots.Swapped swap;
      synchronized (this) {
        // A shard group (--shards) keeps the old one open for requests a router pinned to it; the one
        // retired before it goes now. A whole-snapshot server closes the old one as it always has.
        swap = held.swap(next, !settings.shards().all(), PREVIOUS_GRACE);
        if (swap != null) {
          // Counted with the swap, so that a status never shows the new snapshot with the old count.
          checks.swapped(id);
        }
      }
      if (swap == null) {
        next.release(); // closed meanwhile
        return false;
      }
      if (swap.dropped() != null) {
        swap.dropped().release(); // the owner's reference: closes now or when the last query finishes
      }
      LOG.info("reloaded: now serving snapshot {} (was {})", id, serving == null ? "none" : serving);
      swapped(id, serving);
      verification.start(next);
      return true;
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

  /** Where the snapshots come from. */
  SnapshotSource source() {
    return source;
  }

  /** The options every snapshot is opened with. */
  SearchOptions options() {
    return options;
  }

  /** The snapshot served before the current one, or null. */
  public synchronized String previousId() {
    return previousId;
  }

  /**
   * Takes {@code lease}'s snapshot out of service at once (if it is still served), removes its
   * {@code VERIFIED} record, and serves the previous snapshot instead if it opens with every file hashed.
   */
  private void failedVerification(Lease lease, SnapshotVerifier.Result r) {
    String id = lease.id();
    String error = "snapshot " + id + " failed verification after it was opened and is no longer served: "
        + String.join("; ", r.problems());
    LOG.error(error);
    new SnapshotStore(lease.root()).dropVerifiedRecord(id);
    synchronized (this) {
      verification.set(new VerificationStatus(id, VerificationStatus.State.FAILED, r.files(), r.bytes(),
          String.join("; ", r.problems()), Instant.now()));
      if (!held.takeOut(lease, error)) {
        return;
      }
      checks.condemn(id);
    }
    checks.failed(id, new SnapshotException(error), true);
    lease.release(); // the owner's reference: closes once the queries running on it have finished
    fallBack(id, error);
  }

  /** With nothing served after {@code failedId} was taken out: the previous snapshot, every file hashed. */
  private void fallBack(String failedId, String error) {
    synchronized (checkLock) {
      String previous = previousId();
      if (!held.empty()) {
        return; // a reload has already put another snapshot in its place
      }
      if (previous == null || previous.equals(failedId)) {
        LOG.error("no earlier snapshot to serve instead of {}: answering 503 until CURRENT names one that opens",
            failedId);
        return;
      }
      Lease fallback;
      try {
        fallback = opener.open(previous, Verification.FULL);
      } catch (RuntimeException | Error e) {
        LOG.error("cannot fall back to snapshot {} either: {}", previous, e.toString());
        held.unavailable(error + "; the snapshot before it (" + previous + ") cannot be opened either: "
            + e.getMessage());
        return;
      }
      if (!held.serveIfNone(fallback)) {
        fallback.release();
        return;
      }
      LOG.warn("serving snapshot {} again (every file hashed) in place of {}, which failed verification", previous,
          failedId);
      swapped(previous, failedId);
      verification.start(fallback);
    }
  }

  /** The poller's task: nothing may escape it, or the executor cancels it and reloading stops for good. */
  private void checkQuietly() {
    try {
      checkNow();
    } catch (Throwable e) {
      ReloadStatus s = reloadStatus();
      LOG.warn("snapshot reload failed ({} in a row), still serving {}; next attempt at {}: {}", s.consecutiveFailures(),
          s.serving() == null ? "nothing" : s.serving(), s.nextAttempt(), e.toString());
    }
  }

  @Override
  public void close() {
    if (!held.close()) {
      return;
    }
    checks.close();
    verification.close();
  }

  /** A reference-counted searcher; the swap holds one reference, each query another. */
  public static final class Lease implements AutoCloseable {
    private final Searcher searcher;
    /** The local snapshots root it was opened from. */
    private final Path root;
    private final AtomicInteger refs = new AtomicInteger(1);

    Lease(Searcher searcher, Path root) {
      this.searcher = searcher;
      this.root = root;
    }

    public Searcher searcher() {
      return searcher;
    }

    Path root() {
      return root;
    }

    String id() {
      return searcher.snapshotId();
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
