package dev.kiln.search.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One request in flight: answered exactly once (a body timeout and a late body can race), and
 * recorded in the metrics when its answer has been written.
 */
final class Exchange {
  final Request request;
  final String endpoint;
  private final Response response;
  private final Callback callback;
  private final ServerMetrics metrics;
  private final long start = System.nanoTime();
  private final AtomicBoolean done = new AtomicBoolean();

  Exchange(Request request, Response response, Callback callback, String endpoint, ServerMetrics metrics) {
    this.request = request;
    this.response = response;
    this.callback = callback;
    this.endpoint = endpoint;
    this.metrics = metrics;
  }

  void send(Reply reply) {
    if (!done.compareAndSet(false, true)) {
      return;
    }
    byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
    response.setStatus(reply.status());
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, reply.contentType());
    for (Map.Entry<String, String> h : reply.headers().entrySet()) {
      response.getHeaders().put(h.getKey(), h.getValue());
    }
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, bytes.length);
    response.write(true, ByteBuffer.wrap(bytes), Callback.from(() -> {
      metrics.record(endpoint, reply.status(), System.nanoTime() - start);
      callback.succeeded();
    }, failure -> {
      metrics.record(endpoint, reply.status(), System.nanoTime() - start);
      callback.failed(failure); // the client went away while we wrote: Jetty closes the connection
    }));
  }

  /** Ends the exchange without an answer: the client has gone, the connection is closed. */
  void abandon() {
    if (done.compareAndSet(false, true)) {
      // Closed first, so that Jetty does not try to write an error page to a client that has gone.
      request.getConnectionMetaData().getConnection().getEndPoint().close();
      callback.failed(new EofException("client closed the connection before its search started"));
    }
  }
}
