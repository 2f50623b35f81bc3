package dev.kiln.router;

import java.net.URI;
import java.nio.file.Path;
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
 * @param roots the snapshots roots searched as one ({@code --root}, federated), in the order and with
 *     the weights {@code kiln serve --snapshots} would give them; each group serves one of them, as
 *     its {@code describe} says. Empty: every group serves one root, unlabelled, as one server of it.
 * @param rerankModel the cross-encoder model directory the router reranks the merged candidates with
 *     ({@code --rerank-model}, as {@code kiln serve --rerank-model}); null: no reranking
 */
public record RouterConfig(List<List<URI>> groups, String host, int port, long deadlineMs, long hedgeMs,
    boolean allowPartial, long pollMs, String groupKey, List<Root> roots, Path rerankModel) {
  /**
   * A federated root: its label, which must be the root its groups describe (as their {@code kiln serve
   * --snapshots} named it) and which answers name, and its weight in the merge ({@code --root-weight}).
   */
  public record Root(String label, double weight) {
    public Root {
      if (label == null || label.isBlank()) {
        throw new IllegalArgumentException("--root must name a snapshots root");
      }
      if (!(weight >= 0) || Double.isInfinite(weight)) {
        throw new IllegalArgumentException("--root-weight must be finite and >= 0, was " + weight);
      }
    }
  }

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
    roots = roots == null ? List.of() : List.copyOf(roots);
    if (roots.size() == 1) {
      throw new IllegalArgumentException("--root names the roots of a federated search: give two or more, or none"
          + " for one root");
    }
    if (roots.stream().map(Root::label).distinct().count() != roots.size()) {
      throw new IllegalArgumentException("--root names the same root twice: " + roots.stream().map(Root::label)
          .toList());
    }
  }

  /** Without a reranker. */
  public RouterConfig(List<List<URI>> groups, String host, int port, long deadlineMs, long hedgeMs,
      boolean allowPartial, long pollMs, String groupKey, List<Root> roots) {
    this(groups, host, port, deadlineMs, hedgeMs, allowPartial, pollMs, groupKey, roots, null);
  }

  /** Without federated roots. */
  public RouterConfig(List<List<URI>> groups, String host, int port, long deadlineMs, long hedgeMs,
      boolean allowPartial, long pollMs, String groupKey) {
    this(groups, host, port, deadlineMs, hedgeMs, allowPartial, pollMs, groupKey, List.of());
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
        + (groupKey == null ? "none" : "set") + ", roots=" + roots + ", rerankModel=" + rerankModel + "]";
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
    return new RouterConfig(groups, host, value, deadlineMs, hedgeMs, allowPartial, pollMs, groupKey, roots, rerankModel);
  }

  public RouterConfig withHost(String value) {
    return new RouterConfig(groups, value, port, deadlineMs, hedgeMs, allowPartial, pollMs, groupKey, roots, rerankModel);
  }

  public RouterConfig withDeadlineMs(long value) {
    return new RouterConfig(groups, host, port, value, hedgeMs, allowPartial, pollMs, groupKey, roots, rerankModel);
  }

  public RouterConfig withHedgeMs(long value) {
    return new RouterConfig(groups, host, port, deadlineMs, value, allowPartial, pollMs, groupKey, roots, rerankModel);
  }

  public RouterConfig withAllowPartial(boolean value) {
    return new RouterConfig(groups, host, port, deadlineMs, hedgeMs, value, pollMs, groupKey, roots, rerankModel);
  }

  public RouterConfig withPollMs(long value) {
    return new RouterConfig(groups, host, port, deadlineMs, hedgeMs, allowPartial, value, groupKey, roots, rerankModel);
  }

  public RouterConfig withGroupKey(String value) {
    return new RouterConfig(groups, host, port, deadlineMs, hedgeMs, allowPartial, pollMs, value, roots, rerankModel);
  }

  /** Searches {@code value} as one (federated); each group serves one of them. */
  public RouterConfig withRoots(List<Root> value) {
    return new RouterConfig(groups, host, port, deadlineMs, hedgeMs, allowPartial, pollMs, groupKey, value, rerankModel);
  }

  /** Reranks the merged candidates with the cross-encoder in {@code dir} (null: none). */
  public RouterConfig withRerankModel(Path dir) {
    return new RouterConfig(groups, host, port, deadlineMs, hedgeMs, allowPartial, pollMs, groupKey, roots, dir);
  }
}
