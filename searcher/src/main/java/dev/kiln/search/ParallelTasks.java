package dev.kiln.search;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;

/**
 * Independent parts of one query (hybrid's legs, the reading and analysis of its feedback chunks) run
 * side by side on the shared search pool ({@link SearchThreads}), the calling thread taking the first
 * part and then any part no pool thread has started yet — so a saturated pool (a busy server) costs
 * no more than running them in turn, and never deadlocks, even when a part searches segments on the
 * same pool. Results come back in the order of the parts; the first failure is thrown.
 */
final class ParallelTasks {
  /** One part of a query. */
  interface Task<T> {
    T call() throws IOException;
  }

  private ParallelTasks() {}

  static <T> List<T> run(List<Task<T>> tasks) throws IOException {
    ExecutorService pool = tasks.size() < 2 ? null : SearchThreads.shared();
    List<T> out = new ArrayList<>(tasks.size());
    if (pool == null) {
      for (Task<T> t : tasks) {
        out.add(t.call());
      }
      return out;
    }
    List<FutureTask<T>> rest = new ArrayList<>(tasks.size() - 1);
    for (Task<T> t : tasks.subList(1, tasks.size())) {
      FutureTask<T> f = new FutureTask<>(() -> {
        try {
          return t.call();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      rest.add(f);
      try {
        pool.execute(f);
      } catch (RejectedExecutionException e) {
        // A pool shut down or full: the calling thread runs the part below.
      }
    }
    try {
      out.add(tasks.get(0).call());
    } catch (IOException | RuntimeException | Error e) {
      rest.forEach(f -> f.cancel(false));
      throw e;
    }
    for (int i = 0; i < rest.size(); i++) {
      FutureTask<T> f = rest.get(i);
      f.run(); // a no-op when a pool thread started it already
      try {
        out.add(result(f));
      } catch (IOException | RuntimeException | Error e) {
        rest.subList(i + 1, rest.size()).forEach(r -> r.cancel(false));
        throw e;
      }
    }
    return out;
  }

  private static <T> T result(FutureTask<T> f) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while a search part ran on the pool");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof UncheckedIOException u) {
        throw u.getCause();
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IOException(cause);
    }
  }
}
