package dev.kiln.search.http;

import java.util.List;
import java.util.Objects;

/**
 * How {@link SearchServer} listens and protects itself.
 *
 * @param host address to bind
 * @param port port; 0 picks a free one
 * @param threads search threads (searches and context assembly run only there)
 * @param queue searches that may wait for a thread; one more is answered 503 with {@code Retry-After}
 * @param idleTimeoutMs a connection with no bytes for this long is closed; request headers, and a
 *     request body, must also arrive whole within it (a client trickling bytes is cut off too)
 * @param maxConnections open connections at most; past it the server stops accepting and shortens
 *     the idle timeout of the open ones, so idle connections make room
 * @param allowedHosts names accepted in {@code Host} and {@code Origin} besides the bound address and
 *     the loopback names (see {@link HostGuard})
 * @param apiKeys keys a request must present, or {@code null} for none
 * @param sources how hits' {@code source_uri} is shown: relative to the corpus roots it names
 * @param limits the most one request's retrieval options may ask ({@link RequestOption})
 * @param rewriter the query rewriter a request that names none runs ({@code --rewriter}), or null
 */
public record ServerConfig(String host, int port, int threads, int queue, long idleTimeoutMs,
    int maxConnections, List<String> allowedHosts, ApiKeys apiKeys, SourceUris sources, RequestLimits limits,
    String rewriter) {
  public static final int DEFAULT_QUEUE = 64;
  public static final long DEFAULT_IDLE_TIMEOUT_MS = 10_000;
  public static final int DEFAULT_MAX_CONNECTIONS = 512;

  public ServerConfig {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 0..65535, was " + port);
    }
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, was " + threads);
    }
    if (queue < 0) {
      throw new IllegalArgumentException("queue must be >= 0, was " + queue);
    }
    if (idleTimeoutMs < 1) {
      throw new IllegalArgumentException("idle timeout must be >= 1 ms, was " + idleTimeoutMs);
    }
    if (maxConnections < 1) {
      throw new IllegalArgumentException("max connections must be >= 1, was " + maxConnections);
    }
    allowedHosts = List.copyOf(allowedHosts);
    Objects.requireNonNull(sources, "sources");
    limits = limits == null ? RequestLimits.DEFAULTS : limits;
  }

  /** The config without per-request limits of its own ({@link RequestLimits#DEFAULTS}) and no rewriter. */
  public ServerConfig(String host, int port, int threads, int queue, long idleTimeoutMs,
      int maxConnections, List<String> allowedHosts, ApiKeys apiKeys, SourceUris sources) {
    this(host, port, threads, queue, idleTimeoutMs, maxConnections, allowedHosts, apiKeys, sources, null, null);
  }

  /**
   * The defaults: queue 64, idle timeout 10 s, 512 connections, no extra hosts, no keys, no corpus roots
   * ({@link SourceUris#none}).
   */
  public static ServerConfig of(String host, int port, int threads) {
    return new ServerConfig(host, port, threads, DEFAULT_QUEUE, DEFAULT_IDLE_TIMEOUT_MS,
        DEFAULT_MAX_CONNECTIONS, List.of(), null, SourceUris.none());
  }

  public ServerConfig withQueue(int value) {
    return new ServerConfig(host, port, threads, value, idleTimeoutMs, maxConnections, allowedHosts, apiKeys, sources, limits, rewriter);
  }

  public ServerConfig withIdleTimeoutMs(long value) {
    return new ServerConfig(host, port, threads, queue, value, maxConnections, allowedHosts, apiKeys, sources, limits, rewriter);
  }

  public ServerConfig withMaxConnections(int value) {
    return new ServerConfig(host, port, threads, queue, idleTimeoutMs, value, allowedHosts, apiKeys, sources, limits, rewriter);
  }

  public ServerConfig withAllowedHosts(List<String> value) {
    return new ServerConfig(host, port, threads, queue, idleTimeoutMs, maxConnections, value, apiKeys, sources, limits, rewriter);
  }

  public ServerConfig withApiKeys(ApiKeys value) {
    return new ServerConfig(host, port, threads, queue, idleTimeoutMs, maxConnections, allowedHosts, value, sources, limits, rewriter);
  }

  public ServerConfig withLimits(RequestLimits value) {
    return new ServerConfig(host, port, threads, queue, idleTimeoutMs, maxConnections, allowedHosts, apiKeys, sources,
        value, rewriter);
  }

  /** The rewriter requests that name none run ({@code --rewriter}); null: the searcher's own. */
  public ServerConfig withRewriter(String value) {
    return new ServerConfig(host, port, threads, queue, idleTimeoutMs, maxConnections, allowedHosts, apiKeys, sources,
        limits, value);
  }

  public ServerConfig withSources(SourceUris value) {
    return new ServerConfig(host, port, threads, queue, idleTimeoutMs, maxConnections, allowedHosts, apiKeys, value, limits, rewriter);
  }
}
