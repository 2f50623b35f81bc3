package dev.kiln.search.http;

import java.util.List;

/** The endpoints, and which methods each takes ({@code 405} with {@code Allow} for any other). */
enum Route {
  SEARCH("/search", "search", "GET", "POST"),
  CONTEXT("/context", "context", "GET", "POST"),
  HEALTH("/health", "health", "GET", "HEAD"),
  SNAPSHOT("/snapshot", "snapshot", "GET", "HEAD"),
  METRICS("/metrics", "metrics", "GET", "HEAD"),
  /** No such endpoint: 404 whatever the method. */
  UNKNOWN(null, "unknown");

  final String path;
  /** The endpoint's name in metrics and logs. */
  final String label;
  final List<String> methods;

  Route(String path, String label, String... methods) {
    this.path = path;
    this.label = label;
    this.methods = List.of(methods);
  }

  static Route of(String path) {
    for (Route r : values()) {
      if (r.path != null && r.path.equals(path)) {
        return r;
      }
    }
    return UNKNOWN;
  }

  boolean allows(String method) {
    return methods.contains(method);
  }

  /** The {@code Allow} header of a 405. */
  String allow() {
    return String.join(", ", methods);
  }
}
