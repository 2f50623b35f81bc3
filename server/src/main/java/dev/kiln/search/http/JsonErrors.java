package dev.kiln.search.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's error handler: the answers Jetty gives itself, before or outside {@link SearchHandler}
 * (a malformed request line 400, a URI too long 414, headers too large 431, …), in the API's shape,
 * {@code {"error": "…"}} as {@code application/json}, instead of Jetty's HTML page. A 5xx says only a
 * request id, under which the cause is logged.
 */
final class JsonErrors implements Request.Handler {
  private static final Logger LOG = LoggerFactory.getLogger(JsonErrors.class);

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = request.getAttribute(ErrorHandler.ERROR_STATUS) instanceof Integer s ? s : response.getStatus();
    Reply reply;
    if (status >= 500) {
      String id = Reply.newRequestId();
      LOG.error("request {}: answered {} by the HTTP server: {}", id, status,
          request.getAttribute(ErrorHandler.ERROR_MESSAGE),
          request.getAttribute(ErrorHandler.ERROR_EXCEPTION) instanceof Throwable t ? t : null);
      reply = Reply.internalError(status, id);
    } else {
      String reason = HttpStatus.getMessage(status);
      Object message = request.getAttribute(ErrorHandler.ERROR_MESSAGE);
      reply = Reply.error(status, message == null || message.toString().isBlank() || message.toString().equals(reason)
          ? reason : reason + ": " + message);
    }
    byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, reply.contentType());
    for (Map.Entry<String, String> h : reply.headers().entrySet()) {
      response.getHeaders().put(h.getKey(), h.getValue());
    }
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    response.write(true, ByteBuffer.wrap(body), callback);
    return true;
  }
}
