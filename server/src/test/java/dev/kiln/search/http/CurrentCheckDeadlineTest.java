package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.search.SearchOptions;
import dev.kiln.search.ShardSelection;
import dev.kiln.search.SnapshotFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read of {@code CURRENT} that hangs (a hung network mount) fails its check after the deadline and
 * is abandoned; no other read starts while it has not returned, so hung reads never pile up; once it
 * returns, checks resume and the server reloads.
 */
class CurrentCheckDeadlineTest {
  @TempDir Path root;

  /** The local root, whose reads of CURRENT block while {@link #hang} is set. */
  private final class HangingSource implements SnapshotSource {
    final SnapshotSource local = SnapshotSource.local(root);
    final AtomicInteger reads = new AtomicInteger();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger mostInFlight = new AtomicInteger();
    volatile CountDownLatch hang;

    @Override
    public String currentId() {
      reads.incrementAndGet();
      mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      try {
        CountDownLatch h = hang;
        if (h != null) {
          h.await();
        }
        return local.currentId();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } finally {
        inFlight.decrementAndGet();
      }
    }

    @Override
    public Path prepare(String id, ShardSelection shards) throws IOException {
      return local.prepare(id, shards);
    }
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  @Test
  void aHungReadOfCurrentFailsItsCheckPilesUpNothingAndReloadingResumesWhenItReturns() throws Exception {
    String a = SnapshotFixture.withVectors(c -> unit(384, c.text().length())).write(root);
    HangingSource source = new HangingSource();
    CountDownLatch hang = new CountDownLatch(1);
    try (ReloadingSearcher searchers = new ReloadingSearcher(source, SearchOptions.defaults(),
        ReloadSettings.polling(20).withCheckTimeoutMillis(200))) {
      source.hang = hang;
      // The check that hung says "did not finish within 200 ms", the ones after it "… its 200 ms deadline …".
      await("a check that missed its deadline", () -> String.valueOf(searchers.reloadStatus().lastError())
          .contains("200 ms"));
      int readsWhenHung = source.reads.get();
      long checks = searchers.reloadStatus().checks();
      await("ten more checks", () -> searchers.reloadStatus().checks() >= checks + 10);
      ReloadStatus s = searchers.reloadStatus();
      assertFalse(s.healthy());
      assertEquals(a, s.serving(), "the served snapshot keeps serving");
      assertTrue(s.lastError().contains("has still not returned"), s.lastError());
      assertEquals(readsWhenHung, source.reads.get(), "no read started while the hung one had not returned");
      assertEquals(1, source.mostInFlight.get());
      assertTrue(s.lastCheckOkSecondsAgo() >= 0.2, s.toString());

      String b = SnapshotFixture.withVectors(c -> unit(384, c.text().length())).write(root);
      source.hang = null;
      hang.countDown();
      await("the reload of " + b, () -> b.equals(searchers.currentId()));
      assertTrue(searchers.reloadStatus().healthy());
      assertTrue(searchers.reloadStatus().lastCheckOkSecondsAgo() < s.lastCheckOkSecondsAgo());
    } finally {
      hang.countDown();
    }
  }

  private static float[] unit(int dimension, int seed) {
    float[] v = new float[dimension];
    v[seed % dimension] = 1;
    return v;
  }
}
