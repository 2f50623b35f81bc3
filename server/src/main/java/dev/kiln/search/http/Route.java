package dev.kiln.search.http;

import java.util.List;

/**
 * The endpoints: which methods each takes ({@code 405} with {@code Allow} for any other) and who may
 * call it. The roles (docs/FORMATS.md, "HTTP responses"): without {@code --api-keys} every client
 * that passes the {@code Host}/{@code Origin} checks may call everything; with them, {@code /health}
 * needs no key, searches need any valid key (a bound key's searches are narrowed to its binding), and
 * {@code /snapshot} and {@code /metrics}, which describe the whole service (all clients' traffic, the
 * manifest, the reload errors), need a key without bindings.
 */
enum Route {
  SEARCH("/search", "search", Access.ANY_KEY, "GET", "POST"),
  CONTEXT("/context", "context", Access.ANY_KEY, "GET", "POST"),
  HEALTH("/health", "health", Access.OPEN, "GET", "HEAD"),
  SNAPSHOT("/snapshot", "snapshot", Access.UNBOUND_KEY, "GET", "HEAD"),
  METRICS("/metrics", "metrics", Access.UNBOUND_KEY, "GET", "HEAD"),
  /** The web page's static files ({@code /ui} and below): they hold no data, the API calls they make do. */
  UI("/ui", "ui", Access.OPEN, "GET", "HEAD"),
  /** The root's snapshots ({@link Inspection}): like {@code /snapshot}, the whole service's. */
  SNAPSHOTS("/snapshots", "snapshots", Access.UNBOUND_KEY, "GET", "HEAD"),
  MANIFEST("/manifest", "manifest", Access.UNBOUND_KEY, "GET", "HEAD"),
  /** A search explained: as {@code /search}, a bound key's filter narrowed to its binding. */
  EXPLAIN("/explain", "explain", Access.ANY_KEY, "GET"),
  /** The API's own description: public, like the API's documentation. */
  OPENAPI("/openapi.json", "openapi", Access.OPEN, "GET", "HEAD"),
  /**
   * A shard group's side of a router's search ({@link GroupEndpoint}): the router's own key, which must
   * be unbound, and the client's key in {@link #CLIENT_KEY_HEADER}, by which the phases are narrowed.
   */
  GROUP("/internal/group", "group", Access.ROUTER, "POST"),
  /** No such endpoint: 404 whatever the method. */
  UNKNOWN(null, "unknown", Access.OPEN);

  /** Who may call an endpoint when the server has API keys. */
  enum Access {
    /** No key needed: load-balancer probes. */
    OPEN,
    /** Any valid key; a bound key's searches are narrowed to its binding. */
    ANY_KEY,
    /** A valid key without bindings. */
    UNBOUND_KEY,
    /**
     * A router: a valid key without bindings (a tenant's key calling the group directly could name
     * other tenants' chunks in the later phases), carrying its client's key in {@link #CLIENT_KEY_HEADER}.
     */
    ROUTER
  }

  /** The header in which a router passes on its client's API key to {@code /internal/group}. */
  static final String CLIENT_KEY_HEADER = "X-Kiln-Client-Key";

  final String path;
  /** The endpoint's name in metrics and logs. */
  final String label;
  final Access access;
  final List<String> methods;

  Route(String path, String label, Access access, String... methods) {
    this.path = path;
    this.label = label;
    this.access = access;
    this.methods = List.of(methods);
  }

  static Route of(String path) {
    if (path.startsWith("/ui/")) {
      return UI;
    }
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
