package dev.kiln.search.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;

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

  Reply withHeader(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new Reply(status, contentType, body, more);
  }
}
