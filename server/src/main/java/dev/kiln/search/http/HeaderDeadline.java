package dev.kiln.search.http;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Closes a connection whose request line and headers have been arriving for longer than the
 * timeout. Jetty's idle timeout only closes a connection that sends nothing; a client trickling a
 * byte every few seconds (slow loris) would otherwise hold its connection for ever.
 *
 * <p>Built on Jetty's public API only: a connection's byte count ({@link Connection#getBytesIn}) and the
 * requests the handler sees ({@link #track}), since Jetty hands a request to the handler once its headers
 * are in. A connection is inside a request's headers when no request of it is being handled and bytes
 * have arrived since the last one was answered (between requests a keep-alive connection sends
 * nothing, and the idle timeout covers it; a request body has its own deadline). Each connection is
 * looked at every half timeout; it is closed when three looks in a row (so at least a full timeout)
 * found it in the headers of the same request.
 */
final class HeaderDeadline implements Connection.Listener {
  private final Scheduler scheduler;
  private final long periodMs;
  private final ServerMetrics metrics;
  private final Map<Connection, Watch> watches = new ConcurrentHashMap<>();

  HeaderDeadline(Scheduler scheduler, long timeoutMs, ServerMetrics metrics) {
    this.scheduler = scheduler;
    this.periodMs = Math.max(1, timeoutMs / 2);
    this.metrics = metrics;
  }

  @Override
  public void onOpened(Connection connection) {
    Watch w = new Watch(connection);
    watches.put(connection, w);
    w.schedule();
  }

  @Override
  public void onClosed(Connection connection) {
    watches.remove(connection);
  }

  /**
   * Notes that {@code request}'s headers have arrived and it is being handled; returns the callback to
   * complete it with, which notes that it has been answered.
   */
  Callback track(Request request, Callback callback) {
    Watch w = watches.get(request.getConnectionMetaData().getConnection());
    if (w == null) {
      return callback;
    }
    w.started.incrementAndGet();
    w.active.incrementAndGet();
    return new Callback() {
      @Override
      public void succeeded() {
        w.answered();
        callback.succeeded();
      }

      @Override
      public void failed(Throwable x) {
        w.answered();
        callback.failed(x);
      }

      @Override
      public InvocationType getInvocationType() {
        return callback.getInvocationType();
      }
    };
  }

  private final class Watch implements Runnable {
    private final Connection connection;
    /** Requests whose headers arrived, and those of them not answered yet. */
    final AtomicLong started = new AtomicLong();
    final AtomicInteger active = new AtomicInteger();
    /** Bytes received when the last request was answered (0: none yet). */
    private final AtomicLong bytesWhenAnswered = new AtomicLong();
    private long lastStarted = -1;
    private int looks;

    Watch(Connection connection) {
      this.connection = connection;
    }

    void answered() {
      bytesWhenAnswered.set(connection.getBytesIn());
      active.decrementAndGet();
    }

    void schedule() {
      scheduler.schedule(this, periodMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
      if (!connection.getEndPoint().isOpen()) {
        watches.remove(connection);
        return;
      }
      long requests = started.get();
      boolean inHeaders = active.get() == 0 && connection.getBytesIn() > bytesWhenAnswered.get();
      looks = inHeaders && (looks == 0 || requests == lastStarted) ? looks + 1 : 0;
      lastStarted = requests;
      if (looks >= 3) {
        metrics.timedOut("header");
        connection.getEndPoint().close();
        watches.remove(connection);
        return;
      }
      schedule();
    }
  }
}
