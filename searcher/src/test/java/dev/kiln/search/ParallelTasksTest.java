package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ParallelTasksTest {
  @Test
  void resultsComeBackInTheOrderOfTheParts() throws IOException {
    List<ParallelTasks.Task<Integer>> tasks = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      int n = i;
      tasks.add(() -> n * n);
    }
    assertEquals(List.of(0, 1, 4, 9, 16, 25, 36), ParallelTasks.run(tasks));
  }

  @Test
  @Timeout(30)
  void twoPartsRunAtTheSameTimeWhenThePoolHasAThreadFree() throws IOException {
    assumeTrue(SearchThreads.shared() != null, "one search thread on this machine: parts run in turn");
    // Each part waits for the other: run in turn, the first would time out.
    CountDownLatch both = new CountDownLatch(2);
    ParallelTasks.Task<Boolean> part = () -> {
      both.countDown();
      try {
        return both.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    };
    assertEquals(List.of(true, true), ParallelTasks.run(List.of(part, part)));
  }

  @Test
  @Timeout(30)
  void aSaturatedPoolCostsTurnsNotADeadlock() throws Exception {
    ExecutorService pool = SearchThreads.shared();
    assumeTrue(pool != null, "one search thread on this machine: no pool to saturate");
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch busy = new CountDownLatch(SearchThreads.size());
    for (int i = 0; i < SearchThreads.size(); i++) {
      pool.execute(() -> {
        busy.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    try {
      assertTrue(busy.await(10, TimeUnit.SECONDS), "every pool thread is blocked");
      Thread caller = Thread.currentThread();
      AtomicInteger inCaller = new AtomicInteger();
      ParallelTasks.Task<String> part = () -> {
        if (Thread.currentThread() == caller) {
          inCaller.incrementAndGet();
        }
        return "done";
      };
      assertEquals(List.of("done", "done", "done"), ParallelTasks.run(List.of(part, part, part)));
      assertEquals(3, inCaller.get(), "the calling thread ran every part the pool could not start");
    } finally {
      release.countDown();
    }
  }

  @Test
  void aFailingPartThrowsItsOwnException() {
    IOException broken = new IOException("shard unreadable");
    List<ParallelTasks.Task<String>> tasks = List.of(() -> "fine", () -> {
      throw broken;
    });
    assertSame(broken, assertThrows(IOException.class, () -> ParallelTasks.run(tasks)));
    IllegalStateException bug = new IllegalStateException("bug");
    List<ParallelTasks.Task<String>> first = List.of(() -> {
      throw bug;
    }, () -> "fine");
    assertSame(bug, assertThrows(IllegalStateException.class, () -> ParallelTasks.run(first)));
  }
}
