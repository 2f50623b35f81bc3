package dev.kiln.search;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.index.IndexReader;

/**
 * The process-wide pool that searches a snapshot's shards (their segments) in parallel. One pool for
 * every searcher, so that a server reloading snapshots, or searching several roots, never holds more
 * than {@code kiln.search.threads} (default: the cores) search threads. Lucene's task executor runs
 * a query's segment tasks here and in the calling thread, which takes over any task not yet started,
 * so a saturated pool slows queries down but never deadlocks them. Results do not depend on it:
 * per-segment top hits are merged by score, then by doc id.
 */
final class SearchThreads {
  static final String PROPERTY = "kiln.search.threads";
  private static ExecutorService pool; // guarded by SearchThreads.class

  private SearchThreads() {}

  /** Threads of the shared pool: {@code kiln.search.threads} or the cores. */
  static int size() {
    return Math.max(1, Integer.getInteger(PROPERTY, Runtime.getRuntime().availableProcessors()));
  }

  /** The shared pool, or {@code null} (search in the calling thread) when it would have one thread. */
  static synchronized ExecutorService shared() {
    int threads = size();
    if (threads <= 1) {
      return null;
    }
    if (pool == null) {
      AtomicInteger n = new AtomicInteger();
      ThreadFactory daemons = r -> {
        Thread t = new Thread(r, "kiln-search-" + n.incrementAndGet());
        t.setDaemon(true); // a JVM that is done searching exits without closing the pool
        return t;
      };
      ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(), daemons);
      executor.allowCoreThreadTimeOut(true); // an idle searcher holds no threads
      pool = executor;
    }
    return pool;
  }

  /**
   * One searcher over every shard's segments, each segment its own slice on the shared pool: a
   * query's shards are searched in parallel, and Lucene merges the per-slice top hits by score, then
   * doc id, so results are those of a sequential search. With one thread, Lucene's own search.
   */
  static SnapshotIndexSearcher searcher(IndexReader reader) {
    return new SnapshotIndexSearcher(reader, shared());
  }
}
