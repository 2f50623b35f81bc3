package dev.kiln.search.http;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The snapshots a {@link ReloadingSearcher} holds open: the served one, and on a shard group the one
 * served before it while its grace period lasts, so that a router can finish a query's phases on the
 * snapshot it chose. Hands out leases and gives up the owner's reference of what it drops; it never
 * closes a searcher itself (a lease closes it when its last reference goes). Kept apart from the
 * reload checks so that who may lease what is decided in one place. Thread-safe.
 */
final class HeldSnapshots {
  /** What is served; null while nothing can be. Volatile so that {@link #acquire()} takes no lock. */
  private volatile ReloadingSearcher.Lease current;
  /** The snapshot served before {@link #current}, kept for a router's pinned requests; null when none. */
  private ReloadingSearcher.Lease retired;
  private Instant retiredUntil;
  /** Why nothing is served, while {@link #current} is null for a failed verification. */
  private String unavailable;
  private volatile boolean closed;

  /** What a swap dropped: the owner's reference to release once outside every lock (null: none). */
  record Swapped(ReloadingSearcher.Lease dropped) {}

  HeldSnapshots(ReloadingSearcher.Lease first) {
    this.current = first;
  }

  /** @see ReloadingSearcher#acquire() */
  ReloadingSearcher.Lease acquire() {
    while (true) {
      ReloadingSearcher.Lease l = current;
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

  /** @see ReloadingSearcher#acquire(String) */
  ReloadingSearcher.Lease acquire(String id) {
    ReloadingSearcher.Lease l = acquire();
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

  /** @see ReloadingSearcher#held() */
  synchronized List<String> held() {
    List<String> out = new ArrayList<>(2);
    ReloadingSearcher.Lease l = current;
    if (l != null) {
      out.add(l.id());
    }
    if (retired != null && !retired.id().equals(l == null ? null : l.id())) {
      out.add(retired.id());
    }
    return out;
  }

  /** The served snapshot's id, or null while nothing is served. */
  String currentId() {
    ReloadingSearcher.Lease l = current;
    return l == null ? null : l.id();
  }

  /** Whether {@code lease} is what is served now (a verification's answer is about it only then). */
  boolean serves(ReloadingSearcher.Lease lease) {
    return !closed && current == lease;
  }

  boolean closed() {
    return closed;
  }

  /**
   * Serves {@code next}. With {@code keepPrevious} (a shard group) the one served so far stays leasable
   * for {@code grace} and the one retired before it is dropped; otherwise the one served so far is.
   *
   * @return what to release, or null when closed (the caller then releases {@code next})
   */
  synchronized Swapped swap(ReloadingSearcher.Lease next, boolean keepPrevious, Duration grace) {
    if (closed) {
      return null;
    }
    ReloadingSearcher.Lease old = current;
    current = next;
    ReloadingSearcher.Lease dropped = retired;
    retired = null;
    if (keepPrevious) {
      retired = old;
      retiredUntil = Instant.now().plus(grace);
    } else {
      dropped = old;
    }
    unavailable = null;
    return new Swapped(dropped);
  }

  /**
   * Stops serving {@code lease} (it failed verification) and records why nothing is served; false when
   * it is no longer served anyway. The caller releases the owner's reference.
   */
  synchronized boolean takeOut(ReloadingSearcher.Lease lease, String why) {
    if (closed || current != lease) {
      return false;
    }
    current = null;
    unavailable = why;
    return true;
  }

  /** Serves {@code fallback} if nothing is served; false (the caller releases it) when something is. */
  synchronized boolean serveIfNone(ReloadingSearcher.Lease fallback) {
    if (closed || current != null) {
      return false;
    }
    current = fallback;
    unavailable = null;
    return true;
  }

  /** Whether nothing is served (and it is still open): a fallback may take the empty place. */
  boolean empty() {
    return !closed && current == null;
  }

  synchronized void unavailable(String why) {
    unavailable = why;
  }

  /** Releases the retired snapshot once its grace period is over (or at once with {@code force}). */
  void expireRetired(boolean force) {
    ReloadingSearcher.Lease r;
    synchronized (this) {
      if (retired == null || (!force && Instant.now().isBefore(retiredUntil))) {
        return;
      }
      r = retired;
      retired = null;
    }
    r.release();
  }

  /** Stops leasing and releases the owner's references; false if it was already closed. */
  boolean close() {
    ReloadingSearcher.Lease l;
    synchronized (this) {
      if (closed) {
        return false;
      }
      closed = true;
      l = current;
    }
    if (l != null) {
      l.release();
    }
    expireRetired(true);
    return true;
  }
}
