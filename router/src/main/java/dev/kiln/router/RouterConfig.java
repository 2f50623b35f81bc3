package dev.kiln.router;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * How a router runs: its shard groups (each a list of replica base URLs), where it listens, and its
 * fault behaviour.
 *
 * @param groups one list of replicas per shard group; together the groups serve every shard once
 * @param deadlineMs how long one search may take, all phases and replicas together; a slow replica
 *     costs at most this
 * @param hedgeMs after this long without an answer from a replica, ask the group's next one as well
 *     and take the first answer; 0 turns hedging off
 * @param allowPartial answer without a group none of whose replicas answers, with {@code "partial":
 *     true} and the missing shards named; otherwise such a search is 503 with {@code Retry-After}
 * @param pollMs how often each replica is asked what it holds (snapshots, health)
 * @param groupKey the API key the router's own calls to the groups ({@code describe}, at start-up and
 *     when polling) carry, for groups started with {@code --api-keys}; null: none. A client's search
 *     carries the client's key, never this one, so a group narrows it by the client's binding.
 */
public record RouterConfig(List<List<URI>> groups, String host, int port, long deadlineMs, long hedgeMs,
    boolean allowPartial, long pollMs, String groupKey) {
  public static final long DEFAULT_DEADLINE_MS = 2000;
  public static final long DEFAULT_POLL_MS = 500;

  public RouterConfig {
    if (groups == null || groups.isEmpty()) {
      throw new IllegalArgumentException("at least one --group URL[,URL...] is required");
    }
    for (List<URI> g : groups) {
      if (g.isEmpty()) {
        throw new IllegalArgumentException("a --group needs at least one replica URL");
      }
    }
    groups = groups.stream().map(List::copyOf).toList();
    if (deadlineMs < 1) {
      throw new IllegalArgumentException("--deadline-ms must be >= 1, was " + deadlineMs);
    }
    if (hedgeMs < 0) {
      throw new IllegalArgumentException("--hedge-ms must be >= 0, was " + hedgeMs);
    }
    if (pollMs < 1) {
      throw new IllegalArgumentException("--poll-ms must be >= 1, was " + pollMs);
    }
    if (groupKey != null && (groupKey.isBlank() || groupKey.chars().anyMatch(c -> c < 0x21 || c > 0x7e))) {
      throw new IllegalArgumentException("--group-key-file must hold one key of printable ASCII characters");
    }
  }

  /** Without a group key. */
  public RouterConfig(List<List<URI>> groups, String host, int port, long deadlineMs, long hedgeMs,
      boolean allowPartial, long pollMs) {
    this(groups, host, port, deadlineMs, hedgeMs, allowPartial, pollMs, null);
  }

  /** Never the key itself: configurations are logged. */
  @Override
  public String toString() {
    return "RouterConfig[groups=" + groups + ", host=" + host + ", port=" + port + ", deadlineMs=" + deadlineMs
        + ", hedgeMs=" + hedgeMs + ", allowPartial=" + allowPartial + ", pollMs=" + pollMs + ", groupKey="
        + (groupKey == null ? "none" : "set") + "]";
  }

  /** Groups on loopback defaults: port 0 (any), 2 s deadline, no hedging, no partial answers. */
  public static RouterConfig of(List<List<URI>> groups) {
    return new RouterConfig(groups, "127.0.0.1", 0, DEFAULT_DEADLINE_MS, 0, false, DEFAULT_POLL_MS);
  }

  /**
   * One {@code --group} value: replica base URLs separated by commas, each {@code http://host:port}.
   *
   * @throws IllegalArgumentException naming the bad URL
   */
  public static List<URI> parseGroup(String value) {
    List<URI> out = new ArrayList<>();
    for (String part : value.split(",")) {
      String p = part.strip();
      URI uri;
      try {
        uri = URI.create(p);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--group: '" + p + "' is not a URL: " + e.getMessage(), e);
      }
      if (!"http".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
        throw new IllegalArgumentException("--group: '" + p + "' must be http://HOST:PORT of a kiln serve --shards");
      }
      out.add(uri);
    }
    return out;
  }

  public RouterConfig withPort(int value) {
    return new RouterConfig(groups, host, value, deadlineMs, hedgeMs, allowPartial, pollMs, groupKey);
  }

  public RouterConfig withHost(String value) {
    return new RouterConfig(groups, value, port, deadlineMs, hedgeMs, allowPartial, pollMs, groupKey);
  }

  public RouterConfig withDeadlineMs(long value) {
    return new RouterConfig(groups, host, port, value, hedgeMs, allowPartial, pollMs, groupKey);
  }

  public RouterConfig withHedgeMs(long value) {
    return new RouterConfig(groups, host, port, deadlineMs, value, allowPartial, pollMs, groupKey);
  }

  public RouterConfig withAllowPartial(boolean value) {
    return new RouterConfig(groups, host, port, deadlineMs, hedgeMs, value, pollMs, groupKey);
  }

  public RouterConfig withPollMs(long value) {
    return new RouterConfig(groups, host, port, deadlineMs, hedgeMs, allowPartial, value, groupKey);
  }

  public RouterConfig withGroupKey(String value) {
    return new RouterConfig(groups, host, port, deadlineMs, hedgeMs, allowPartial, pollMs, value);
  }
}
