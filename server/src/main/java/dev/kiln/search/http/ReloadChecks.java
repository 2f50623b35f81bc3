package dev.kiln.search.http;

import dev.kiln.snapshot.Verification;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reload checks of a {@link ReloadingSearcher}: reads {@code CURRENT} (within the check deadline,
 * through a {@link CurrentReader}), polls it on a schedule, decides whether the id it names is worth
 * opening, and keeps the counts and the failure back-off that {@code /health} reports. Opening and
 * swapping stay with the coordinator; this class only says whether and how (which {@link
 * Verification}) to try. Thread-safe; {@link #read()} is serialised by the coordinator's check lock.
 *
 * <p>Each read of {@code CURRENT} runs on a thread of its own with a deadline
 * ({@link ReloadSettings#checkTimeoutMillis()}): a read that hangs (a hung network mount) fails the
 * check and is abandoned, and while it has not returned no other read starts, so hung reads never
 * pile up; checks resume once it returns. (A FIFO or other special file named {@code CURRENT} is
 * refused without being opened by the storage itself.) The status says when a check last read
 * {@code CURRENT} successfully.
 */
final class ReloadChecks implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadChecks.class);
  /** Snapshots that failed full verification remembered at most (each is then opened fully hashed). */
  private static final int MAX_CONDEMNED = 16;

  /** Reads {@code CURRENT} within the check deadline; used under the coordinator's check lock. */
  private final CurrentReader currentReader;
  private final long backoffBase;
  private final AtomicLong reloads = new AtomicLong();
  private final AtomicLong failedReloads = new AtomicLong();
  private final AtomicLong attempts = new AtomicLong();
  private final AtomicLong checks = new AtomicLong();
  private volatile ScheduledExecutorService poller;
  // Failure state, guarded by this.
  private long consecutive;
  private String failingId;
  private String lastError;
  private Instant failingSince;
  private Instant lastFailure;
  private Instant nextAttempt;
  private Instant lastCheckOk;
  private final Set<String> condemned = new LinkedHashSet<>();

  ReloadChecks(SnapshotSource source, ReloadSettings settings, ThreadFactory readThreads) {
    this.currentReader = new CurrentReader(source, settings.checkTimeoutMillis(), readThreads);
    this.backoffBase = Math.max(settings.pollMillis(), 100);
  }

  /** Runs {@code check} every {@code pollMillis}; it must catch everything, or the schedule ends. */
  void startPolling(Runnable check, long pollMillis, ThreadFactory threads) {
    poller = Executors.newSingleThreadScheduledExecutor(threads);
    Future<?> unused = poller.scheduleWithFixedDelay(check, pollMillis, pollMillis, TimeUnit.MILLISECONDS);
  }

  /** The id {@code CURRENT} names now, within the deadline. */
  String read() {
    return currentReader.read();
  }

  /** Counts a check as it starts. */
  void counted() {
    checks.incrementAndGet();
  }

  /** Records that {@code CURRENT} was read now (the first open's read included). */
  synchronized void readOk() {
    lastCheckOk = Instant.now();
  }

  /**
   * Whether to open {@code id}, read from {@code CURRENT} while {@code serving} is served: null when not
   * (it is served, or it failed and its back-off has not passed), else how to verify it as it opens.
   */
  synchronized Verification decide(String id, String serving, Verification usual) {
    lastCheckOk = Instant.now();
    if (id.equals(serving)) {
      if (consecutive > 0) {
        LOG.info("CURRENT names the served snapshot {} again: reload failures cleared", id);
        clearFailures();
      }
      return null;
    }
    if (id.equals(failingId) && nextAttempt != null && Instant.now().isBefore(nextAttempt)) {
      return null; // backing off: this snapshot failed to open, do not fetch (and hash) it every poll
    }
    // A snapshot that failed full verification is trusted on no record's word again.
    Verification verify = condemned.contains(id) ? Verification.FULL : usual;
    attempts.incrementAndGet();
    return verify;
  }

  /** Records a swap to {@code id}: counted, its failures and any condemnation forgotten. */
  synchronized void swapped(String id) {
    reloads.incrementAndGet();
    condemned.remove(id);
    clearFailures();
  }

  /** Remembers that {@code id} failed full verification: it is opened fully hashed from now on. */
  synchronized void condemn(String id) {
    condemned.add(id);
    while (condemned.size() > MAX_CONDEMNED) {
      condemned.remove(condemned.iterator().next());
    }
  }

  /**
   * Records a failure of {@code id} (null: reading {@code CURRENT}); with {@code backOff}, {@code id} is
   * not tried again before a back-off that doubles with each failure in a row.
   */
  synchronized void failed(String id, Throwable e, boolean backOff) {
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
    long maxMillis = ReloadingSearcher.MAX_BACKOFF.toMillis();
    long delay = backOff ? Math.min(maxMillis, backoffBase << Math.min(consecutive - 1, 20)) : 0;
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

  long reloads() {
    return reloads.get();
  }

  long failedReloads() {
    return failedReloads.get();
  }

  synchronized ReloadStatus status(String serving, VerificationStatus verification) {
    return new ReloadStatus(serving, reloads.get(), failedReloads.get(), consecutive, checks.get(), attempts.get(),
        failingId, lastError, failingSince, lastFailure, nextAttempt, lastCheckOk, verification);
  }

  @Override
  public void close() {
    if (poller != null) {
      poller.shutdownNow(); // interrupts a download in progress; its searcher is closed, never swapped in
    }
    currentReader.close(); // a read blocked in the kernel stays so, on a daemon thread
  }
}
