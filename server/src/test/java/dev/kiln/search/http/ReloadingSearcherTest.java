package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.Searcher;
import dev.kiln.search.SnapshotFixture;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hot reload under hostile or broken snapshots: it survives, backs off, reports, and leaks nothing. */
class ReloadingSearcherTest {
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

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.onSpinWait();
    }
  }

  @Test
  void thePollerSurvivesAHugeCurrentReportsItAndRecovers() throws Exception {
    String a = new SnapshotFixture(embedder).write(root);
    try (ReloadingSearcher searchers = new ReloadingSearcher(root, SearchOptions.defaults(), 50)) {
      try (RandomAccessFile f = new RandomAccessFile(root.resolve("CURRENT").toFile(), "rw")) {
        f.setLength(3L << 30); // read whole, this was an OutOfMemoryError that cancelled the poller for good
      }
      await("three failed checks in a row", () -> searchers.reloadStatus().consecutiveFailures() >= 3);
      ReloadStatus s = searchers.reloadStatus();
      assertFalse(s.healthy());
      assertEquals(a, s.serving(), "the old snapshot keeps serving");
      assertTrue(s.lastError().contains("larger than " + SnapshotLayout.MAX_CURRENT_BYTES), s.lastError());
      assertTrue(s.failingSince() != null && s.prometheus().contains("kiln_snapshot_reload_failing 1"), s.toString());

      String b = new SnapshotFixture(embedder).write(root); // rewrites CURRENT
      await("the reload of " + b, () -> b.equals(searchers.currentId()));
      assertTrue(searchers.reloadStatus().healthy());
      assertTrue(searchers.reloadStatus().prometheus().contains("kiln_snapshot_reload_failing 0"));
    }
  }

  @Test
  void aSnapshotThatFailsToOpenIsNotOpenedAgainAtEveryPoll() throws Exception {
    String a = new SnapshotFixture(embedder).write(root);
    try (ReloadingSearcher searchers = new ReloadingSearcher(root, SearchOptions.defaults(), 50)) {
      String broken = new SnapshotFixture(embedder).publish(false).write(root);
      SnapshotLayout layout = new SnapshotLayout(root);
      Path victim;
      try (var files = Files.list(layout.shardDir(broken, 0))) {
        victim = files.filter(p -> p.getFileName().toString().endsWith(".cfs")).findFirst().orElseThrow();
      }
      byte[] bytes = Files.readAllBytes(victim);
      bytes[bytes.length / 2] ^= 1; // same size, other bytes: only hashing finds it (no VERIFIED record)
      Files.write(victim, bytes);
      Files.writeString(layout.current(), broken + "\n");

      long checksBefore = searchers.reloadStatus().checks();
      await("30 polls", () -> searchers.reloadStatus().checks() >= checksBefore + 30);
      ReloadStatus s = searchers.reloadStatus();
      assertEquals(a, s.serving());
      assertEquals(broken, s.failingSnapshot());
      assertTrue(s.lastError().contains("failed verification"), s.lastError());
      // Back-off 50 ms, 100, 200, ... : a handful of opens over 30 polls, not 30 (each hashing everything).
      assertTrue(s.attempts() <= 8 && s.attempts() >= 1, s.toString());
      assertTrue(s.nextAttempt() != null && s.nextAttempt().isAfter(s.lastFailure()), s.toString());
    }
  }

  @Test
  void aSnapshotThatFailsToOpenLeavesNoMemoryMapBehind() throws Exception {
    Path maps = Path.of("/proc/self/maps");
    assumeTrue(Files.isReadable(maps), "needs Linux /proc to see memory maps");
    String id = new SnapshotFixture(embedder).write(root);
    SnapshotStore store = new SnapshotStore(root);
    Manifest m = store.manifest(id);
    Manifest.IndexInfo i = m.index();
    // Fails in the searcher's constructor, after every shard was opened (and mapped).
    Manifest bad = new Manifest(m.formatVersion(), m.id(), m.created(), m.parent(), m.model(), m.chunker(),
        new Manifest.IndexInfo(i.analyzer(), i.bm25K1(), i.bm25B(), i.vectorSimilarity(), i.hnswM(), i.hnswBeamWidth(),
            "no-such-analyzer"), m.counters(), m.shards());
    SnapshotStore.json().writeValue(store.layout().manifest(id).toFile(), bad);
    String dir = store.layout().snapshotDir(id).toString();
    for (int attempt = 0; attempt < 3; attempt++) {
      SnapshotException e = assertThrows(SnapshotException.class, () -> Searcher.builder().root(root)
          .snapshot(id).build().close());
      assertTrue(e.getMessage().contains("no-such-analyzer"), e.getMessage());
    }
    long mapped = Files.readAllLines(maps).stream().filter(l -> l.contains(dir)).count();
    assertEquals(0, mapped, "memory maps of " + dir + " left after failed opens");
  }
}
