package dev.kiln.search.http;

import java.io.IOException;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.BufferUtil;

/**
 * Tells whether a request's client is still there, before a queued search is started for it.
 *
 * <p>While a request is being handled Jetty does not read its connection, so a client that gave up
 * is only noticed when the answer is written. The probe reads (without blocking) up to one byte:
 * end of stream means the client closed its side and the search would be wasted. A byte means the
 * client already sent its next request (pipelining); the byte is lost to Jetty, so the answer then
 * closes the connection, which a pipelining client must handle by retrying.
 */
final class ClientProbe {
  enum State { PRESENT, GONE, PIPELINED }

  private ClientProbe() {}

  static State probe(Request request) {
    EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
    if (!endPoint.isOpen()) {
      return State.GONE;
    }
    try {
      int n = endPoint.fill(BufferUtil.allocate(1));
      return n < 0 ? State.GONE : n == 0 ? State.PRESENT : State.PIPELINED;
    } catch (IOException e) {
      return State.GONE; // reset by peer
    }
  }
}
