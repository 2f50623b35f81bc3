package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The {@link SnapshotStorage} contract, run against every implementation: each subclass only says how
 * to open a storage at a root. A new storage inherits the whole contract as tests (as Lucene's
 * {@code BaseKnnVectorsFormatTestCase} does for vector formats). Every test gets a fresh, empty root.
 */
public abstract class SnapshotStorageContract {
  private static final AtomicInteger ROOTS = new AtomicInteger();

  private final List<SnapshotStorage> opened = new ArrayList<>();
  private final String rootName = "root" + ROOTS.incrementAndGet();

  /**
   * Opens a storage over the root named {@code rootName}, which this implementation places wherever
   * it keeps test data (a directory, a bucket prefix, an HDFS path). Opening the same name twice
   * gives two independent storages over one root, as two processes would have.
   */
  protected abstract SnapshotStorage open(String rootName) throws Exception;

  /** The storage under test, over this test's own root. */
  protected final SnapshotStorage storage() throws Exception {
    return track(open(rootName));
  }

  private SnapshotStorage track(SnapshotStorage s) {
    opened.add(s);
    return s;
  }

  @AfterEach
  void closeStorages() throws Exception {
    for (SnapshotStorage s : opened) {
      if (s instanceof AutoCloseable c) {
        c.close();
      }
    }
  }

  /**
   * Whether the store behind this test decides truly concurrent conditional writes atomically. Real
   * S3, HDFS and local files do; a test server may not (say why when overriding), and then only the
   * sequential compare-and-set tests run against it.
   */
  protected boolean storeDecidesConcurrentWritesAtomically() {
    return true;
  }

  protected static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void anAbsentObjectReadsEmptyAndHasNoSizeStreamOrTime() throws Exception {
    SnapshotStorage st = storage();
    assertTrue(st.read("CURRENT").isEmpty());
    assertFalse(st.exists("CURRENT"));
    assertThrows(NoSuchFileException.class, () -> st.size("snapshots/x/a"));
    assertThrows(NoSuchFileException.class, () -> st.open("snapshots/x/a"));
    assertEquals(-1, st.lastModified("CURRENT"));
  }

  @Test
  void aWrittenObjectReadsBackWholeWithItsSizeAndTime() throws Exception {
    SnapshotStorage st = storage();
    st.write("snapshots/x/a", utf8("alpha"));
    assertTrue(st.exists("snapshots/x/a"));
    assertArrayEquals(utf8("alpha"), st.read("snapshots/x/a").orElseThrow());
    assertEquals(5, st.size("snapshots/x/a"));
    try (InputStream in = st.open("snapshots/x/a")) {
      assertArrayEquals(utf8("alpha"), in.readAllBytes());
    }
    assertTrue(st.lastModified("snapshots/x/a") > 0);
    st.write("snapshots/x/a", utf8("replaced"));
    assertArrayEquals(utf8("replaced"), st.read("snapshots/x/a").orElseThrow());
  }

  @Test
  void listNamesTheEntriesDirectlyUnderAPrefixSorted() throws Exception {
    SnapshotStorage st = storage();
    st.write("snapshots/y/c", utf8("gamma"));
    st.write("snapshots/x/d/b", utf8("beta"));
    st.write("snapshots/x/a", utf8("alpha"));
    assertEquals(List.of("x", "y"), st.list("snapshots/"));
    assertEquals(List.of("a", "d"), st.list("snapshots/x/"));
    assertEquals(List.of(), st.list("nothing/"));
    assertEquals(List.of(), st.list("snapshots/x/a/"), "an object lists nothing under it");
  }

  @Test
  void deleteRemovesOneObjectAndIgnoresAnAbsentOne() throws Exception {
    SnapshotStorage st = storage();
    st.write("snapshots/y/c", utf8("gamma"));
    st.delete("snapshots/y/c");
    st.delete("snapshots/y/c");
    assertFalse(st.exists("snapshots/y/c"));
    assertEquals(List.of(), st.list("snapshots/y/"));
  }

  @Test
  void deleteTreeRemovesEverythingUnderAPrefixAndNothingElse() throws Exception {
    SnapshotStorage st = storage();
    st.write("snapshots/x/a", utf8("alpha"));
    st.write("snapshots/x/d/b", utf8("beta"));
    st.write("snapshots/xy/c", utf8("gamma"));
    st.deleteTree("snapshots/x/");
    assertEquals(List.of("xy"), st.list("snapshots/"), "a sibling sharing the prefix's letters stays");
    assertArrayEquals(utf8("gamma"), st.read("snapshots/xy/c").orElseThrow());
  }

  @Test
  void keysThatEscapeTheRootAreRefused() throws Exception {
    SnapshotStorage st = storage();
    assertThrows(IllegalArgumentException.class, () -> st.read("../escape"));
    assertThrows(IllegalArgumentException.class, () -> st.write("snapshots/../../escape", utf8("x")));
  }

  @Test
  void compareAndSetReplacesOnlyTheExpectedValue() throws Exception {
    SnapshotStorage st = storage();
    assertTrue(st.compareAndSet("CURRENT", null, utf8("a")), "first write of an absent object");
    assertFalse(st.compareAndSet("CURRENT", null, utf8("b")), "absent expected, but it exists");
    assertFalse(st.compareAndSet("CURRENT", utf8("x"), utf8("b")), "another value expected");
    assertArrayEquals(utf8("a"), st.read("CURRENT").orElseThrow(), "a lost compare-and-set changes nothing");
    assertTrue(st.compareAndSet("CURRENT", utf8("a"), utf8("b")));
    assertArrayEquals(utf8("b"), st.read("CURRENT").orElseThrow());
  }

  /** Racers each open their own storage over one root: the store, not shared memory, must decide. */
  @Test
  void concurrentCompareAndSetsFromIndependentStoragesHaveExactlyOneWinner() throws Exception {
    Assumptions.assumeTrue(storeDecidesConcurrentWritesAtomically(),
        getClass().getSimpleName() + ": the test server does not evaluate conditional writes atomically");
    int racers = 4;
    List<SnapshotStorage> storages = new ArrayList<>();
    for (int i = 0; i < racers; i++) {
      storages.add(track(open(rootName)));
    }
    CyclicBarrier start = new CyclicBarrier(racers);
    ExecutorService pool = Executors.newFixedThreadPool(racers);
    try {
      List<Future<Boolean>> won = new ArrayList<>();
      for (int i = 0; i < racers; i++) {
        SnapshotStorage st = storages.get(i);
        byte[] value = utf8("snapshot-" + i);
        won.add(pool.submit(() -> {
          start.await(60, TimeUnit.SECONDS);
          return st.compareAndSet("CURRENT", null, value);
        }));
      }
      int winners = 0;
      for (Future<Boolean> f : won) {
        winners += f.get(120, TimeUnit.SECONDS) ? 1 : 0;
      }
      assertEquals(1, winners, "exactly one first publish may win");
      String current = new String(storages.get(0).read("CURRENT").orElseThrow(), StandardCharsets.UTF_8);
      assertTrue(current.startsWith("snapshot-"), current);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aCappedReadRefusesALargerObjectAndReadsTheRest() throws Exception {
    SnapshotStorage s = storage();
    s.write("CURRENT", new byte[2048]);
    IOException e = assertThrows(IOException.class, () -> s.read("CURRENT", 1024));
    assertTrue(e.getMessage().contains("larger than 1024"), e.getMessage());
    s.write("small", "abc".getBytes(StandardCharsets.UTF_8));
    assertArrayEquals("abc".getBytes(StandardCharsets.UTF_8), s.read("small", 3).orElseThrow());
    assertTrue(s.read("absent", 10).isEmpty());
  }

  @Test
  void lockedIsExclusiveAcrossIndependentStoragesAndReentrant() throws Exception {
    SnapshotStorage a = storage();
    SnapshotStorage b = track(open(rootName));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      long[] aLeft = new long[1];
      Future<Long> bEntered = a.locked("CURRENT", () -> {
        // Re-entrant: a compare-and-set and a nested lock inside the action do not wait for themselves.
        assertTrue(a.compareAndSet("CURRENT", null, "x".getBytes(StandardCharsets.UTF_8)));
        assertEquals("nested", a.locked("CURRENT", () -> "nested"));
        Future<Long> f = pool.submit(() -> b.locked("CURRENT", System::nanoTime));
        // Hold the lock a while (bounded): b must not get in meanwhile.
        try {
          f.get(500, TimeUnit.MILLISECONDS);
        } catch (TimeoutException expected) {
          // b is waiting, as it should
        } catch (Exception other) {
          throw new IOException(other);
        }
        aLeft[0] = System.nanoTime();
        return f;
      });
      long entered = bEntered.get(120, TimeUnit.SECONDS);
      assertTrue(entered >= aLeft[0], "the second storage entered while the first held the lock");
    } finally {
      pool.shutdownNow();
    }
  }
}
