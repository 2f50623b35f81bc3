package dev.kiln.search.http;

import dev.kiln.search.ShardSelection;
import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotVerifier;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verifies a served snapshot in full in the background when it was opened on the word of its {@code
 * VERIFIED} record, one at a time ({@link ReloadSettings#verifier()}, or a thread of its own), and
 * says where that stands. Only the snapshot still served counts: a verification is cancelled when
 * another takes its place, and its answer is dropped if it arrives late. A mismatch is handed to the
 * coordinator, which decides what to serve instead. Thread-safe.
 */
final class BackgroundVerification implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BackgroundVerification.class);
  /** Set on the thread running a background verification: it must not interrupt itself. */
  private static final ThreadLocal<Boolean> IN_VERIFICATION = ThreadLocal.withInitial(() -> false);

  private final HeldSnapshots held;
  private final BiConsumer<ReloadingSearcher.Lease, SnapshotVerifier.Result> onMismatch;
  private final ExecutorService ownVerifier;
  private final Executor verifier;
  private final AtomicReference<Future<?>> verifying = new AtomicReference<>();
  private VerificationStatus status;

  /**
   * @param given the executor to verify on, or null for a low-priority thread of its own
   * @param onMismatch told (on the verifying thread) of a served snapshot with a file that does not match
   */
  BackgroundVerification(Executor given, ThreadFactory threads, HeldSnapshots held,
      BiConsumer<ReloadingSearcher.Lease, SnapshotVerifier.Result> onMismatch) {
    this.held = held;
    this.onMismatch = onMismatch;
    this.ownVerifier = given == null ? Executors.newSingleThreadExecutor(r -> {
      Thread t = threads.newThread(r);
      t.setPriority(Thread.MIN_PRIORITY);
      return t;
    }) : null;
    this.verifier = given != null ? given : ownVerifier;
  }

  /**
   * Verifies {@code lease}'s snapshot in full on the verifier, unless every file was hashed as it
   * opened; a verification still running for an earlier snapshot is cancelled.
   */
  void start(ReloadingSearcher.Lease lease) {
    if (lease.searcher().hashedAtOpen()) {
      set(VerificationStatus.of(lease.id(), VerificationStatus.State.VERIFIED_AT_OPEN));
      cancel(verifying.getAndSet(null));
      return;
    }
    set(VerificationStatus.of(lease.id(), VerificationStatus.State.PENDING));
    FutureTask<Void> task = new FutureTask<>(() -> {
      IN_VERIFICATION.set(true);
      try {
        verify(lease);
      } finally {
        IN_VERIFICATION.remove();
      }
    }, null);
    cancel(verifying.getAndSet(task));
    try {
      verifier.execute(task);
    } catch (RejectedExecutionException e) {
      if (!held.closed()) {
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

  synchronized void set(VerificationStatus now) {
    status = now;
  }

  synchronized VerificationStatus status() {
    return status;
  }

  /**
   * Hashes every file {@code lease}'s searcher reads — of a shard group, its own shards' files only:
   * another group's are neither served nor held here — and a mismatch goes to the coordinator.
   */
  private void verify(ReloadingSearcher.Lease lease) {
    if (!held.serves(lease)) {
      return; // superseded before it started
    }
    set(VerificationStatus.of(lease.id(), VerificationStatus.State.RUNNING));
    long started = System.nanoTime();
    ShardSelection shards = lease.searcher().shardSelection();
    Manifest manifest = lease.searcher().manifest();
    SnapshotVerifier.Result r = new SnapshotVerifier(new LocalSnapshotStorage(lease.root()))
        .check(manifest, SnapshotVerifier.Scope.SERVING, SnapshotVerifier.HashPolicy.ALL, shards);
    if (!held.serves(lease) || Thread.currentThread().isInterrupted()) {
      return; // superseded while it ran: its answer is about a snapshot no longer served
    }
    if (r.problems().isEmpty()) {
      set(new VerificationStatus(lease.id(), VerificationStatus.State.VERIFIED, r.files(), r.bytes(), null,
          Instant.now()));
      LOG.info("snapshot {}: every file of {} verified in the background ({} files, {} bytes, {} ms)", lease.id(),
          shards.describe(manifest), r.files(), r.bytes(), (System.nanoTime() - started) / 1_000_000);
      return;
    }
    onMismatch.accept(lease, r);
  }

  @Override
  public void close() {
    Future<?> running = verifying.getAndSet(null);
    if (running != null) {
      running.cancel(true);
    }
    if (ownVerifier != null) {
      ownVerifier.shutdownNow();
    }
  }
}
