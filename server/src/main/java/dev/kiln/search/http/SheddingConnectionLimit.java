package dev.kiln.search.http;

import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.ConnectionLimit;
import org.eclipse.jetty.server.Server;

/**
 * Jetty's {@link ConnectionLimit}, plus: a connection opened while the limit is in force gets the
 * short idle timeout too, not only those already open when the limit was reached.
 *
 * <p>Why: Jetty counts a connection from the moment its acceptor thread takes it, but a selector
 * thread opens its endpoint later. When the limit is reached, {@code limit()} shortens the timeout
 * of the endpoints open at that instant; the one that reached the limit is never among them, and on a
 * cold JVM or a busy machine none of the ones accepted just before are either. Those kept the full
 * idle timeout, and an idle HTTP/1.1 connection holds its slot for two of them (the first expiry
 * only shuts output, the second closes): 20 s at the default 10 s where about 2 s was meant. Three
 * such rounds kept a {@code /health} request queued behind 48 idle connections for 60 s.
 *
 * <p>Every {@code limit()} and {@code unlimit()} (serialized by Jetty's lock) sets {@link #limiting}
 * before it walks the open endpoints, and an endpoint is among those before {@link #onOpened} runs.
 * So whichever comes last, the walk or this class's own setting, gives the timeout that matches the
 * final state. No lock of ours: setting a shorter timeout may expire and close the endpoint on this
 * thread, which takes Jetty's lock, while {@code limit()} runs with that lock held.
 */
final class SheddingConnectionLimit extends ConnectionLimit {
  private final long idleTimeoutMs;
  private volatile boolean limiting;

  /**
   * @param idleTimeoutMs the connector's own idle timeout, restored when the limit clears
   * @param idleAtLimitMs the shorter one while the limit is in force
   */
  SheddingConnectionLimit(int maxConnections, Server server, long idleTimeoutMs, long idleAtLimitMs) {
    super(maxConnections, server);
    this.idleTimeoutMs = idleTimeoutMs;
    setIdleTimeout(idleAtLimitMs);
  }

  @Override
  protected void limit() {
    limiting = true;
    super.limit();
  }

  @Override
  protected void unlimit() {
    limiting = false;
    super.unlimit();
  }

  @Override
  public void onOpened(Connection connection) {
    super.onOpened(connection);
    EndPoint endPoint = connection.getEndPoint();
    // Re-read after setting: if the limit was reached or cleared meanwhile, that walk may have run
    // before this endpoint's setting, which would then be the wrong one; set again until it holds.
    boolean atLimit = limiting;
    while (true) {
      endPoint.setIdleTimeout(atLimit ? getIdleTimeout() : idleTimeoutMs);
      boolean now = limiting;
      if (now == atLimit) {
        return;
      }
      atLimit = now;
    }
  }
}
