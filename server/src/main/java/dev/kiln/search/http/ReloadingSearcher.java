package dev.kiln.search.http;

import dev.kiln.search.SearchOptions;
import dev.kiln.search.Searcher;
import dev.kiln.search.ShardSelection;
import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.SnapshotVerifier;
import dev.kiln.snapshot.Verification;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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
 * <p>Each read of {@code CURRENT} runs on a thread of its own with a deadline
 * ({@link ReloadSettings#checkTimeoutMillis()}): a read that hangs (a hung network mount) fails the
 * check and is abandoned, and while it has not returned no other read starts, so hung reads never
 * pile up; checks resume once it returns. (A FIFO or other special file named {@code CURRENT} is
 * refused without being opened by the storage itself.) The status says when a check last read
 * {@code CURRENT} successfully.
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
 */
public final class ReloadingSearcher implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingSearcher.class);
  /** Snapshots that failed full verification remembered at most (each is then opened fully hashed). */
  private static final int MAX_CONDEMNED = 16;
  /** Set on the thread running a background verification: it must not interrupt itself. */
  private static final ThreadLocal<Boolean> IN_VERIFICATION = ThreadLocal.withInitial(() -> false);

  private final SnapshotSource source;
  private final SearchOptions options;
  private final ReloadSettings settings;
  /** Serialises checks: one download and open at a time. The failure state and the swap use {@code this}. */
  private final Object checkLock = new Object();
  private final ScheduledExecutorService poller;
  /** Reads {@code CURRENT} within the check deadline; used under {@link #checkLock}. */
  private final CurrentReader currentReader;
  private final ExecutorService ownVerifier;
  private final Executor verifier;
  private final AtomicReference<Future<?>> verifying = new AtomicReference<>();
  private final AtomicLong reloads = new AtomicLong();
  private final AtomicLong failedReloads = new AtomicLong();
  private final AtomicLong attempts = new AtomicLong();
  private final AtomicLong checks = new AtomicLong();
  private final long backoffBase;
  /** What is served; null while nothing can be. */
  private volatile Lease current;
  /**
   * The snapshot served before {@link #current}, kept open for {@link #PREVIOUS_GRACE} after a swap so
   * that a router can finish answering from it while other shard groups have not switched yet; null
   * when none is kept. Guarded by this.
   */
  private Lease retired;
  private Instant retiredUntil;
  private volatile boolean closed;
  // Failure state, guarded by this.
  private String previousId;
  private long consecutive;
  private String failingId;
  private String lastError;
  private Instant failingSince;
  private Instant lastFailure;
  private Instant nextAttempt;
  private Instant lastCheckOk;
  private VerificationStatus verification;
  private String unavailable;
  private final Set<String> condemned = new LinkedHashSet<>();

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
    this.currentReader = new CurrentReader(source, settings.checkTimeoutMillis(), daemon("kiln-current-read"));
    this.ownVerifier = settings.verifier() == null ? Executors.newSingleThreadExecutor(r -> {
      Thread t = daemon("kiln-snapshot-verify").newThread(r);
      t.setPriority(Thread.MIN_PRIORITY);
      return t;
    }) : null;
    this.verifier = settings.verifier() != null ? settings.verifier() : ownVerifier;
    this.backoffBase = Math.max(settings.pollMillis(), 100);
    Lease first;
    try {
      String id = currentReader.read();
      Path local = prepare(id);
      first = new Lease(open(local, id, settings.verification()), local);
    } catch (RuntimeException | Error e) {
      currentReader.close();
      if (ownVerifier != null) {
        ownVerifier.shutdownNow();
      }
      throw e;
    }
    synchronized (this) {
      lastCheckOk = Instant.now();
      current = first;
    }
    swapped(first.id(), null);
    startVerification(first);
    if (settings.pollMillis() > 0) {
      poller = Executors.newSingleThreadScheduledExecutor(daemon("kiln-snapshot-watch"));
      // checkQuietly catches everything, so the schedule never ends with a failure to look at.
      Future<?> unused = poller.scheduleWithFixedDelay(this::checkQuietly, settings.pollMillis(),
          settings.pollMillis(), TimeUnit.MILLISECONDS);
    } else {
      poller = null;
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
    while (true) {
      Lease l = current;
      if (closed) {
        throw new IllegalStateException("the service is shutting down");
      }
      if (l == null) {
        String why;
        synchronized (this) {
          why = unavailable;
        }
        throw new SnapshotUnavailable("no snapshot to serve: " + (why == null ? "none is open" : why));
      }
      if (l.retain()) {
        return l;
      }
      // Lost a race with a swap that released l's last reference: the new one is installed.
    }
  }

  /**
   * A lease on snapshot {@code id}: the served one, or the one served before it while its grace
   * period lasts. A shard group answers a router's phases on the snapshot the router chose.
   *
   * @throws SnapshotNotHeld when neither is {@code id}
   */
  public Lease acquire(String id) {
    Lease l = acquire();
    if (l.id().equals(id)) {
      return l;
    }
    l.release();
    synchronized (this) {
      if (retired != null && retired.id().equals(id) && retired.retain()) {
        return retired;
      }
    }
    throw new SnapshotNotHeld(id, held());
  }

  /** The snapshots open for {@link #acquire(String)}: the served one first, then a retired one. */
  public synchronized List<String> held() {
    List<String> out = new ArrayList<>(2);
    Lease l = current;
    if (l != null) {
      out.add(l.id());
    }
    if (retired != null && !retired.id().equals(l == null ? null : l.id())) {
      out.add(retired.id());
    }
    return out;
  }

  /** Releases the retired snapshot once its grace period is over (or at once with {@code force}). */
  private void expireRetired(boolean force) {
    Lease r;
    synchronized (this) {
      if (retired == null || (!force && Instant.now().isBefore(retiredUntil))) {
        return;
      }
      r = retired;
      retired = null;
    }
    r.release();
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
    Lease l = current;
    return l == null ? null : l.id();
  }

  public long reloads() {
    return reloads.get();
  }

  public long failedReloads() {
    return failedReloads.get();
  }

  /** Where reloading stands: served snapshot, last good check, verification, failures, next attempt. */
  public synchronized ReloadStatus reloadStatus() {
    return new ReloadStatus(currentId(), reloads.get(), failedReloads.get(), consecutive, checks.get(), attempts.get(),
        failingId,
        lastError, failingSince, lastFailure, nextAttempt, lastCheckOk, verification);
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
      expireRetired(false);
      String id;
      try {
        id = currentReader.read();
      } catch (RuntimeException | Error e) {
        failed(null, e, false);
        throw e;
      }
      String serving = currentId();
      Verification verify;
      synchronized (this) {
        lastCheckOk = Instant.now();
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
        // A snapshot that failed full verification is trusted on no record's word again.
        verify = condemned.contains(id) ? Verification.FULL : settings.verification();
      }
      attempts.incrementAndGet();
      Lease next;
      try {
        Path local = prepare(id);
        next = new Lease(open(local, id, verify), local);
      } catch (RuntimeException | Error e) {
        failed(id, e, true);
        throw e;
      }
      Lease old;
      Lease dropped;
      synchronized (this) {
        if (closed) {
          next.release();
          return false;
        }
        old = current;
        current = next;
        // A shard group (--shards) keeps the old one open for requests a router pinned to it; the one
        // retired before it goes now. A whole-snapshot server closes the old one as it always has.
        dropped = retired;
        retired = null;
        if (settings.shards().all()) {
          dropped = old;
        } else {
          retired = old;
          retiredUntil = Instant.now().plus(PREVIOUS_GRACE);
        }
        // Counted with the swap, so that a status never shows the new snapshot with the old count.
        reloads.incrementAndGet();
        unavailable = null;
        condemned.remove(id);
        clearFailures();
      }
      if (dropped != null) {
        dropped.release(); // the owner's reference: closes now or when the last query finishes
      }
      LOG.info("reloaded: now serving snapshot {} (was {})", id, serving == null ? "none" : serving);
      swapped(id, serving);
      startVerification(next);
      return true;
    }
  }

  private Searcher open(Path local, String id, Verification verify) {
    // The query model loads while the shards open and, on a swap, before the new snapshot takes queries.
    return Searcher.builder().root(local).snapshot(id).options(options).verify(verify).shards(settings.shards())
        .preloadQueryModel(true).build();
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
   * Verifies {@code lease}'s snapshot in full on the verifier, unless every file was hashed as it
   * opened; a verification still running for an earlier snapshot is cancelled.
   */
  private void startVerification(Lease lease) {
    if (lease.searcher.hashedAtOpen()) {
      setVerification(VerificationStatus.of(lease.id(), VerificationStatus.State.VERIFIED_AT_OPEN));
      cancel(verifying.getAndSet(null));
      return;
    }
    setVerification(VerificationStatus.of(lease.id(), VerificationStatus.State.PENDING));
    FutureTask<Void> task = new FutureTask<>(() -> {
      IN_VERIFICATION.set(true);
      try {
        verifyInBackground(lease);
      } finally {
        IN_VERIFICATION.remove();
      }
    }, null);
    cancel(verifying.getAndSet(task));
    try {
      verifier.execute(task);
    } catch (RejectedExecutionException e) {
      if (!closed) {
        LOG.warn("snapshot {}: background verification not started: {}", lease.id(), e.toString());
      }
    }
  }

  /**
   * Stops an earlier verification (its answer would be about a snapshot no longer served); from
   * within a verification — one that fell back to an earlier snapshot — without interrupting itself.
   */
  private static void cancel(Future<?> previous) {
    if (previous != null) {
      previous.cancel(!IN_VERIFICATION.get());
    }
  }

  private synchronized void setVerification(VerificationStatus status) {
    verification = status;
  }

  /** Hashes every file {@code lease}'s searcher reads; a mismatch takes the snapshot out of service. */
  private void verifyInBackground(Lease lease) {
    if (closed || current != lease) {
      return; // superseded before it started
    }
    setVerification(VerificationStatus.of(lease.id(), VerificationStatus.State.RUNNING));
    long started = System.nanoTime();
    SnapshotVerifier.Result r = new SnapshotVerifier(new LocalSnapshotStorage(lease.root))
        .check(lease.searcher.manifest(), SnapshotVerifier.Scope.SERVING, SnapshotVerifier.HashPolicy.ALL);
    if (closed || current != lease || Thread.currentThread().isInterrupted()) {
      return; // superseded while it ran: its answer is about a snapshot no longer served
    }
    if (r.problems().isEmpty()) {
      setVerification(new VerificationStatus(lease.id(), VerificationStatus.State.VERIFIED, r.files(), r.bytes(), null,
          Instant.now()));
      LOG.info("snapshot {}: every file verified in the background ({} files, {} bytes, {} ms)", lease.id(), r.files(),
          r.bytes(), (System.nanoTime() - started) / 1_000_000);
      return;
    }
    failedVerification(lease, r);
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
    new SnapshotStore(lease.root).dropVerifiedRecord(id);
    synchronized (this) {
      verification = new VerificationStatus(id, VerificationStatus.State.FAILED, r.files(), r.bytes(),
          String.join("; ", r.problems()), Instant.now());
      if (closed || current != lease) {
        return;
      }
      current = null;
      unavailable = error;
      condemned.add(id);
      while (condemned.size() > MAX_CONDEMNED) {
        condemned.remove(condemned.iterator().next());
      }
    }
    failed(id, new SnapshotException(error), true);
    lease.release(); // the owner's reference: closes once the queries running on it have finished
    fallBack(id, error);
  }

  /** With nothing served after {@code failedId} was taken out: the previous snapshot, every file hashed. */
  private void fallBack(String failedId, String error) {
    synchronized (checkLock) {
      String previous = previousId();
      if (closed || current != null) {
        return; // a reload has already put another snapshot in its place
      }
      if (previous == null || previous.equals(failedId)) {
        LOG.error("no earlier snapshot to serve instead of {}: answering 503 until CURRENT names one that opens",
            failedId);
        return;
      }
      Lease fallback;
      try {
        Path local = prepare(previous);
        fallback = new Lease(open(local, previous, Verification.FULL), local);
      } catch (RuntimeException | Error e) {
        LOG.error("cannot fall back to snapshot {} either: {}", previous, e.toString());
        synchronized (this) {
          unavailable = error + "; the snapshot before it (" + previous + ") cannot be opened either: " + e.getMessage();
        }
        return;
      }
      synchronized (this) {
        if (closed || current != null) {
          fallback.release();
          return;
        }
        current = fallback;
        unavailable = null;
      }
      LOG.warn("serving snapshot {} again (every file hashed) in place of {}, which failed verification", previous,
          failedId);
      swapped(previous, failedId);
      startVerification(fallback);
    }
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
          s.serving() == null ? "nothing" : s.serving(), s.nextAttempt(), e.toString());
    }
  }

  @Override
  public void close() {
    Lease l;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      l = current;
    }
    if (l != null) {
      l.release();
    }
    expireRetired(true);
    shutDownThreads();
  }

  private void shutDownThreads() {
    if (poller != null) {
      poller.shutdownNow(); // interrupts a download in progress; its searcher is closed, never swapped in
    }
    Future<?> running = verifying.getAndSet(null);
    if (running != null) {
      running.cancel(true);
    }
    if (ownVerifier != null) {
      ownVerifier.shutdownNow();
    }
    currentReader.close(); // a read blocked in the kernel stays so, on a daemon thread
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
