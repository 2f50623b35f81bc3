package dev.kiln.search.http;

import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Verification;
import java.io.Closeable;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Snapshots of the served root other than the one it serves, opened on demand so that the web page can
 * compare two builds' answers ({@code /explain?snapshot=ID}). Read-only, and bounded: at most
 * {@value #MAX_OPEN} stay open, the least recently used closed first, each only once the last request
 * on it has finished (a {@link ReloadingSearcher.Lease}, as the served snapshot is). Opened as the server
 * opens the one it serves: same options, files hashed unless a {@code VERIFIED} record vouches for them.
 * Only a local root: a remote source's cache holds just what it serves.
 */
final class OtherSnapshots implements Closeable {
  /** Each open snapshot holds its index readers and query embedder; two are enough for a comparison. */
  static final int MAX_OPEN = 2;

  /** In access order: the eldest entry is the least recently used. */
  private final LinkedHashMap<String, ReloadingSearcher.Lease> open = new LinkedHashMap<>(4, 0.75f, true);
  private boolean closed;

  /**
   * A lease on snapshot {@code id} of {@code root} (an id already checked to be a complete snapshot of
   * that root); close it when the request is done. Opens it under this object's lock: a second request
   * for the same snapshot waits for the first open instead of opening it again.
   */
  synchronized ReloadingSearcher.Lease acquire(ReloadingSearcher root, Path localRoot, String id) {
    if (closed) {
      throw new IllegalStateException("the service is shutting down");
    }
    ReloadingSearcher.Lease lease = open.get(id);
    if (lease == null) {
      Searcher searcher = Searcher.builder().root(localRoot).snapshot(id).options(root.options())
          .verify(Verification.RECORD).build();
      lease = new ReloadingSearcher.Lease(searcher, localRoot);
      open.put(id, lease);
      Iterator<Map.Entry<String, ReloadingSearcher.Lease>> eldest = open.entrySet().iterator();
      while (open.size() > MAX_OPEN) {
        ReloadingSearcher.Lease evicted = eldest.next().getValue();
        eldest.remove();
        evicted.release(); // the cache's reference: closes now or when its last request finishes
      }
    }
    // The cache holds a reference to every lease it maps, so this cannot find it closed.
    lease.retain();
    return lease;
  }

  /** Snapshots open now (for tests and the log). */
  synchronized int size() {
    return open.size();
  }

  @Override
  public synchronized void close() {
    closed = true;
    open.values().forEach(ReloadingSearcher.Lease::release);
    open.clear();
  }
}
