package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.ShardSelection;
import dev.kiln.search.SnapshotFixture;
import dev.kiln.snapshot.SnapshotException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ReloadingSearcher} over a {@link SnapshotSource} whose preparation is slow or fails, as a
 * remote root's download is: status and queries are not held up by it, a failed fetch backs off and
 * shows in the status, and the source learns what is served so that it can prune its cache.
 */
class SnapshotSourceReloadTest {
  private static TextEmbedder embedder;
  @TempDir Path root;

  @BeforeAll
  static void openEmbedder() {
    embedder = SnapshotFixture.openEmbedder();
  }

  @AfterAll
  static void closeEmbedder() {
    embedder.close();
  }

  /** The local root, with a preparation step the test controls. */
  private final class GatedSource implements SnapshotSource {
    final SnapshotSource local;
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final List<String> swaps = new CopyOnWriteArrayList<>();
    volatile String gate;
    volatile String fail;

    GatedSource() {
      local = SnapshotSource.local(root);
    }

    @Override
    public String currentId() {
      return local.currentId();
    }

    @Override
    public Path prepare(String id, ShardSelection shards) throws IOException {
      if (id.equals(fail)) {
        throw new IOException("object store answered 503 for " + id);
      }
      if (id.equals(gate)) {
        entered.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
      }
      return local.prepare(id, shards);
    }

    @Override
    public void swapped(String serving, String previous) {
      swaps.add(serving + "<-" + previous);
    }
  }

  @Test
  void statusAndQueriesAnswerWhileANewSnapshotIsStillBeingFetched() throws Exception {
    String a = new SnapshotFixture(embedder).write(root);
    GatedSource source = new GatedSource();
    // Threads of its own: the common pool may have a single worker, which the blocked check would hold.
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (ReloadingSearcher searchers = new ReloadingSearcher(source, SearchOptions.defaults(), 0)) {
      String b = new SnapshotFixture(embedder).write(root);
      source.gate = b;
      CompletableFuture<Boolean> check = CompletableFuture.supplyAsync(searchers::checkNow, threads);
      assertTrue(source.entered.await(60, TimeUnit.SECONDS), "the fetch of " + b + " started");
      // The fetch holds the check lock; the status and the served searcher must not wait for it.
      CompletableFuture<ReloadStatus> status = CompletableFuture.supplyAsync(searchers::reloadStatus, threads);
      assertEquals(a, status.get(10, TimeUnit.SECONDS).serving());
      try (ReloadingSearcher.Lease lease = searchers.acquire()) {
        assertEquals(a, lease.searcher().snapshotId());
      }
      assertFalse(check.isDone());
      source.release.countDown();
      assertTrue(check.get(60, TimeUnit.SECONDS));
      assertEquals(b, searchers.currentId());
      assertEquals(a, searchers.previousId());
      assertEquals(List.of(a + "<-null", b + "<-" + a), source.swaps);
    } finally {
      source.release.countDown();
      threads.shutdownNow();
    }
  }

  @Test
  void aFailedFetchIsReportedBackedOffAndKeepsTheServedSnapshot() throws Exception {
    String a = new SnapshotFixture(embedder).write(root);
    GatedSource source = new GatedSource();
    try (ReloadingSearcher searchers = new ReloadingSearcher(source, SearchOptions.defaults(), 0)) {
      String b = new SnapshotFixture(embedder).write(root);
      source.fail = b;
      SnapshotException e = assertThrows(SnapshotException.class, searchers::checkNow);
      assertTrue(e.getMessage().contains("cannot fetch snapshot " + b) && e.getMessage().contains("503"),
          e.getMessage());
      ReloadStatus s = searchers.reloadStatus();
      assertFalse(s.healthy());
      assertEquals(b, s.failingSnapshot());
      assertEquals(a, s.serving());
      assertTrue(s.nextAttempt().isAfter(s.lastFailure()), s.toString());
      assertEquals(List.of(a + "<-null"), source.swaps);
      // Fixed: taken at the first check after the back-off, not before it.
      Instant retryAfter = s.nextAttempt();
      source.fail = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!searchers.checkNow()) {
        assertTrue(System.nanoTime() < deadline, "no retry of " + b);
        Thread.onSpinWait();
      }
      assertFalse(Instant.now().isBefore(retryAfter), "retried before its back-off ended");
      assertEquals(2, searchers.reloadStatus().attempts(), "one failed fetch, one good one");
      assertTrue(searchers.reloadStatus().healthy());
      assertEquals(b, searchers.currentId());
    }
  }
}
