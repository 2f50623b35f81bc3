package dev.kiln.search.http;

import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Closes a connection whose request line and headers have been arriving for longer than the
 * timeout. Jetty's idle timeout only closes a connection that sends nothing; a client trickling a
 * byte every few seconds (slow loris) would otherwise hold its connection for ever.
 *
 * <p>Each connection is looked at every half timeout; it is closed when three looks in a row (so at
 * least a full timeout) found the same request still in its headers. The parser state is read from
 * the scheduler thread without a lock: a stale read only delays the decision by one look.
 * ({@code HttpConnection} is in Jetty's {@code internal} package but public; it is the only place
 * that knows whether a connection is between requests or inside one's headers.)
 */
final class HeaderDeadline implements Connection.Listener {
  private final Scheduler scheduler;
  private final long periodMs;
  private final ServerMetrics metrics;

  HeaderDeadline(Scheduler scheduler, long timeoutMs, ServerMetrics metrics) {
    this.scheduler = scheduler;
    this.periodMs = Math.max(1, timeoutMs / 2);
    this.metrics = metrics;
  }

  @Override
  public void onOpened(Connection connection) {
    if (connection instanceof HttpConnection http) {
      new Watch(http).schedule();
    }
  }

  private final class Watch implements Runnable {
    private final HttpConnection connection;
    private long lastMessages = -1;
    private int looks;

    Watch(HttpConnection connection) {
      this.connection = connection;
    }

    void schedule() {
      scheduler.schedule(this, periodMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
      if (!connection.getEndPoint().isOpen()) {
        return;
      }
      HttpParser parser = connection.getParser();
      long messages = connection.getMessagesIn();
      boolean inHeaders = !parser.isStart() && parser.inHeaderState();
      looks = inHeaders && (looks == 0 || messages == lastMessages) ? looks + 1 : 0;
      lastMessages = messages;
      if (looks >= 3) {
        metrics.timedOut("header");
        connection.getEndPoint().close();
        return;
      }
      schedule();
    }
  }
}
