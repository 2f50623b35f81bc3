package dev.kiln.search.http;

import dev.kiln.search.FederatedSearcher;
import dev.kiln.search.RelevanceGate;
import dev.kiln.search.RetrievalPath;
import dev.kiln.search.Searcher;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.lucene.util.IOUtils;

/**
 * What {@code kiln serve} serves: one snapshots root, or several searched as one (federated). Each root
 * has its own {@link ReloadingSearcher}, so each follows its own {@code CURRENT} and reloads on its own;
 * a request leases the snapshot every root serves at that moment and searches them together
 * ({@link FederatedSearcher}, built per request over the leased searchers and never closed itself:
 * the leases are).
 */
public final class ServedRoots implements Closeable {
  /** A served root: its label in results and metrics, its reloading searcher, its weight in the merge. */
  public record Root(String label, ReloadingSearcher searchers, double weight) {
    public Root {
      Objects.requireNonNull(label, "label");
      Objects.requireNonNull(searchers, "searchers");
    }
  }

  private final List<Root> roots;
  private final FederatedSearcher.Merge merge;
  private final int rrfK;
  private final RelevanceGate gate;

  public ServedRoots(List<Root> roots, FederatedSearcher.Merge merge, int rrfK, RelevanceGate gate) {
    if (roots.isEmpty()) {
      throw new IllegalArgumentException("no root to serve");
    }
    this.roots = List.copyOf(roots);
    this.merge = merge;
    this.rrfK = rrfK;
    this.gate = gate;
  }

  /** One root, served as before federation existed. */
  public static ServedRoots single(ReloadingSearcher searchers) {
    return new ServedRoots(List.of(new Root("", searchers, 1.0)), FederatedSearcher.Merge.CALIBRATED, 60,
        RelevanceGate.OFF);
  }

  public boolean federated() {
    return roots.size() > 1;
  }

  public List<Root> roots() {
    return roots;
  }

  /** The served snapshot id (null while none is); federated: {@code label=id,...} ({@code none} for such a root). */
  public String currentId() {
    if (!federated()) {
      return roots.get(0).searchers().currentId();
    }
    List<String> ids = new ArrayList<>();
    roots.forEach(r -> {
      String id = r.searchers().currentId();
      ids.add(r.label() + "=" + (id == null ? "none" : id));
    });
    return String.join(",", ids);
  }

  /** Whether every root has a snapshot to serve (see {@link SnapshotUnavailable}). */
  public boolean serving() {
    return roots.stream().allMatch(r -> r.searchers().currentId() != null);
  }

  /** Snapshot swaps, over every root. */
  public long reloads() {
    return roots.stream().mapToLong(r -> r.searchers().reloads()).sum();
  }

  /** Whether every root's latest reload succeeded. */
  public boolean healthy() {
    return roots.stream().allMatch(r -> r.searchers().reloadStatus().healthy());
  }

  /**
   * What {@code /health} shows anyone, with no path in it: the served snapshot id (federated: the
   * roots' ids, comma-separated, in root order, without the root labels, which are paths) and the reload
   * status without its error text ({@link ReloadStatus#summary}; federated: a list in root order).
   */
  public Map<String, Object> health() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("status", healthy() ? "ok" : "degraded");
    if (!federated()) {
      m.put("snapshot", currentId());
      m.put("shards", roots.get(0).searchers().shards().toString());
      m.put("reload", roots.get(0).searchers().reloadStatus().summary());
    } else {
      m.put("snapshot", String.join(",", roots.stream().map(r -> r.searchers().currentId()).toList()));
      m.put("reload", roots.stream().map(r -> r.searchers().reloadStatus().summary()).toList());
    }
    return m;
  }

  /** Reload metrics; federated, one series per root ({@code root} label). */
  public String prometheus() {
    if (!federated()) {
      return roots.get(0).searchers().reloadStatus().prometheus();
    }
    StringBuilder out = new StringBuilder();
    out.append("# HELP kiln_root_reload_failing 1 while the root's latest reload attempt failed.\n")
        .append("# TYPE kiln_root_reload_failing gauge\n");
    for (Root r : roots) {
      out.append("kiln_root_reload_failing{root=\"").append(escape(r.label())).append("\"} ")
          .append(r.searchers().reloadStatus().healthy() ? 0 : 1).append('\n');
    }
    out.append("# HELP kiln_root_reload_failures_total Reloads of the root that failed.\n")
        .append("# TYPE kiln_root_reload_failures_total counter\n");
    for (Root r : roots) {
      out.append("kiln_root_reload_failures_total{root=\"").append(escape(r.label())).append("\"} ")
          .append(r.searchers().reloadStatus().failures()).append('\n');
    }
    out.append("# HELP kiln_root_check_age_seconds Seconds since the root's CURRENT was last read successfully.\n")
        .append("# TYPE kiln_root_check_age_seconds gauge\n");
    for (Root r : roots) {
      out.append("kiln_root_check_age_seconds{root=\"").append(escape(r.label())).append("\"} ")
          .append(r.searchers().reloadStatus().lastCheckOkSecondsAgo()).append('\n');
    }
    return out.toString();
  }

  private static String escape(String label) {
    return label.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  /** Leases the snapshot each root serves now; close the result when the request is done. */
  public Leases acquire() {
    List<ReloadingSearcher.Lease> leases = new ArrayList<>(roots.size());
    try {
      for (Root r : roots) {
        leases.add(r.searchers().acquire());
      }
    } catch (RuntimeException e) {
      leases.forEach(ReloadingSearcher.Lease::close);
      throw e;
    }
    return new Leases(leases);
  }

  /** The snapshots one request searches. */
  public final class Leases implements AutoCloseable {
    private final List<ReloadingSearcher.Lease> leases;

    private Leases(List<ReloadingSearcher.Lease> leases) {
      this.leases = leases;
    }

    /** Each root's leased searcher, in root order. */
    public List<Searcher> searchers() {
      return leases.stream().map(ReloadingSearcher.Lease::searcher).toList();
    }

    /** What a search runs on: the one searcher, or the roots federated. */
    public RetrievalPath path() {
      if (!federated()) {
        return leases.get(0).searcher();
      }
      List<FederatedSearcher.WeightedPath> paths = new ArrayList<>();
      for (int i = 0; i < roots.size(); i++) {
        paths.add(new FederatedSearcher.WeightedPath(roots.get(i).label(), leases.get(i).searcher(),
            roots.get(i).weight()));
      }
      return new FederatedSearcher(paths, merge, rrfK, gate);
    }

    @Override
    public void close() {
      leases.forEach(ReloadingSearcher.Lease::close);
    }
  }

  @Override
  public void close() {
    IOUtils.closeWhileHandlingException(roots.stream().map(Root::searchers).toList());
  }
}
