package dev.kiln.search.http;

import dev.kiln.snapshot.SnapshotException;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads the id {@code CURRENT} names, on a thread of its own and within a deadline, so that a read
 * that blocks (a FIFO in its place, a hung network mount) never blocks the watcher. A read that misses
 * its deadline is abandoned, and until it returns every read fails at once instead of starting
 * another: hung reads never pile up. Not thread-safe: its owner serialises the reads.
 */
final class CurrentReader implements AutoCloseable {
  private final SnapshotSource source;
  private final long timeoutMillis;
  private final ExecutorService thread;
  /** A read that missed its deadline and has not returned, or null. */
  private Future<String> abandoned;
  private Instant abandonedSince;

  CurrentReader(SnapshotSource source, long timeoutMillis, ThreadFactory threads) {
    this.source = source;
    this.timeoutMillis = timeoutMillis;
    this.thread = Executors.newSingleThreadExecutor(threads);
  }

  /** The id {@code CURRENT} names now; a {@link SnapshotException} says why it could not be read in time. */
  String read() {
    if (abandoned != null) {
      if (!abandoned.isDone()) {
        throw new SnapshotException("the read of CURRENT in " + source + " abandoned at " + abandonedSince
            + " after missing its " + timeoutMillis + " ms deadline has still not returned (a hung"
            + " mount?); no other read starts until it does");
      }
      abandoned = null; // returned at last; what it read is stale, so read again
    }
    Instant started = Instant.now();
    Future<String> read = thread.submit(source::currentId);
    try {
      return read.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      abandoned = read;
      abandonedSince = Instant.now();
      throw new SnapshotException("reading CURRENT in " + source + " did not finish within " + timeoutMillis
          + " ms (started " + started + "; a hung mount?): check abandoned");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new SnapshotException("cannot read CURRENT in " + source + ": " + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      read.cancel(true);
      throw new SnapshotException("interrupted while reading CURRENT in " + source, e);
    }
  }

  /** Stops the thread; a read blocked in the kernel stays so, on a daemon thread. */
  @Override
  public void close() {
    thread.shutdownNow();
  }
}
