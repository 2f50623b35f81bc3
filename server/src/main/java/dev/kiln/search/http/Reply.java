package dev.kiln.search.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/** One HTTP answer: status, content type, body and any extra headers ({@code Retry-After}, …). */
record Reply(int status, String contentType, String body, Map<String, String> headers) {
  private static final ObjectMapper JSON = new ObjectMapper();

  Reply {
    headers = Map.copyOf(headers);
  }

  static Reply json(int status, String body) {
    return new Reply(status, "application/json", body, Map.of());
  }

  /** {@code {"error": message}}, the shape every refusal has. */
  static Reply error(int status, String message) {
    return json(status, JSON.createObjectNode().put("error", message).toString());
  }

  /**
   * A failure inside the service: a generic message and the request id under which the whole exception
   * is logged, never the exception's own text (it may name files, hosts or internals).
   */
  static Reply internalError(int status, String requestId) {
    return json(status, JSON.createObjectNode()
        .put("error", "internal error (request id " + requestId + "); the server log has the details")
        .put("request_id", requestId).toString()).withHeader("X-Request-Id", requestId);
  }

  /** A new request id: 16 hex digits, to find a failure's log entry by. */
  static String newRequestId() {
    return HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
  }

  Reply withHeader(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new Reply(status, contentType, body, more);
  }
}
