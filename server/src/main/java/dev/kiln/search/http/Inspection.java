package dev.kiln.search.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.SearchResponse;
import dev.kiln.search.filter.FilterException;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The endpoints the web page ({@code /ui}, {@link UiAssets}) reads, beside the search API and under the
 * same keys ({@link Route}): {@code GET /snapshots} lists the root's snapshots, {@code GET
 * /manifest?snapshot=ID} shows one's manifest (counters, quarantine reasons), and {@code GET /explain}
 * takes a search's parameters plus {@code snapshot=ID} and answers each hit with its per-leg scores and
 * the relevance gate's verdict ({@link Explainer}), on the served snapshot or another one of the root
 * ({@link OtherSnapshots}). They look inside one local root: federated or remote serving answers 400.
 */
final class Inspection implements Closeable {
  /** Newest snapshots listed at most: a root that keeps thousands would make a page nobody reads. */
  static final int MAX_LISTED = 200;
  private static final Set<String> EXPLAIN_PARAMS = Set.of("q", "k", "mode", "filter", "snapshot");

  private final ServedRoots searchers;
  private final SourceUris sources;
  private final OtherSnapshots others = new OtherSnapshots();
  private final Explainer explainer = new Explainer();
  private final ObjectMapper json = new ObjectMapper();

  Inspection(ServedRoots searchers, SourceUris sources) {
    this.searchers = searchers;
    this.sources = sources;
  }

  /** Every complete snapshot of the root, newest first, with the one served marked. */
  Reply snapshots() throws IOException {
    ReloadingSearcher root = root();
    SnapshotStore store = new SnapshotStore(localRoot(root));
    List<String> ids = store.list();
    String current = root.currentId();
    ObjectNode out = json.createObjectNode();
    out.put("current", current);
    out.put("count", ids.size());
    ArrayNode list = out.putArray("snapshots");
    for (int i = ids.size() - 1; i >= 0 && list.size() < MAX_LISTED; i--) {
      String id = ids.get(i);
      ObjectNode s = list.addObject().put("id", id).put("current", id.equals(current));
      try {
        Manifest m = store.manifest(id);
        s.put("created", m.created());
        s.put("parent", m.parent());
        s.put("chunks", m.counters() == null ? null : m.counters().get("chunks"));
        s.put("quarantined", m.quarantine() == null ? 0 : m.quarantine().total());
      } catch (SnapshotException e) {
        s.put("error", "the manifest cannot be read: " + e.getMessage());
      }
    }
    return ok(out);
  }

  /** {@code snapshot=ID}: that snapshot's manifest as the build wrote it. */
  Reply manifest(String rawQuery) throws IOException {
    Map<String, List<String>> p = QueryParams.parseQueryString(rawQuery);
    for (String name : p.keySet()) {
      if (!name.equals("snapshot")) {
        throw new BadRequest("unknown parameter '" + name + "': /manifest takes snapshot");
      }
    }
    String id = snapshotId(p);
    if (id == null) {
      throw new BadRequest("missing snapshot: pass snapshot=ID (GET /snapshots lists them)");
    }
    ReloadingSearcher root = root();
    SnapshotStore store = new SnapshotStore(localRoot(root));
    if (!store.hasManifest(id)) {
      return Reply.error(404, "no snapshot " + id + " in the served root: GET /snapshots lists them");
    }
    ObjectNode out = json.createObjectNode();
    out.put("snapshot", id);
    out.put("current", id.equals(root.currentId()));
    out.set("manifest", json.valueToTree(store.manifest(id)));
    return ok(out);
  }

  /** A search explained: {@code q}, {@code k}, {@code mode}, {@code filter} as {@code /search}, and {@code snapshot}. */
  Reply explain(String rawQuery, ApiKeys.Key key) throws IOException {
    Map<String, List<String>> p = QueryParams.parseQueryString(rawQuery);
    for (String name : p.keySet()) {
      if (!EXPLAIN_PARAMS.contains(name)) {
        throw new BadRequest("unknown parameter '" + name + "': /explain takes q, k, mode, filter, snapshot");
      }
    }
    SearchRequest request = QueryParams.fromParams(p);
    String id = snapshotId(p);
    ReloadingSearcher root = root();
    Optional<MetadataFilter> filter = key == null ? Optional.of(request.filter()) : key.narrow(request.filter());
    try (ReloadingSearcher.Lease lease = lease(root, id)) {
      if (filter.isEmpty()) {
        // The key's binding excludes the whole filter: nothing is searched, as on /search.
        ObjectNode none = json.createObjectNode().put("snapshot", lease.searcher().snapshotId())
            .put("mode", request.mode().label()).put("k", request.k()).put("kept", 0)
            .put("reason", SearchResponse.NO_RELEVANT_CONTEXT);
        none.putArray("results");
        return ok(none);
      }
      SearchRequest bound = new SearchRequest(request.query(), request.mode(), request.k(), filter.get());
      return ok(explainer.explain(lease.searcher(), bound, sources::show));
    } catch (FilterException e) {
      throw new BadRequest(QueryParams.clientMessage(e));
    }
  }

  /** The served snapshot when {@code id} is null or names it, else the other snapshot, opened on demand. */
  private ReloadingSearcher.Lease lease(ReloadingSearcher root, String id) {
    if (id == null || id.equals(root.currentId())) {
      ReloadingSearcher.Lease lease = root.acquire();
      if (id == null || id.equals(lease.searcher().snapshotId())) {
        return lease;
      }
      lease.close(); // swapped between the check and the lease: open it as any other snapshot
    }
    Path local = localRoot(root);
    if (!new SnapshotStore(local).hasManifest(id)) {
      throw new BadRequest("snapshot: no snapshot " + id + " in the served root (GET /snapshots lists them)");
    }
    return others.acquire(root, local, id);
  }

  private static String snapshotId(Map<String, List<String>> p) {
    List<String> v = p.get("snapshot");
    if (v == null || v.isEmpty() || v.get(0).isEmpty()) {
      return null;
    }
    if (v.size() > 1) {
      throw new BadRequest("snapshot appears twice: pass one snapshot id");
    }
    if (!SnapshotLayout.isSnapshotId(v.get(0))) {
      throw new BadRequest("snapshot: not a snapshot id: '" + v.get(0) + "'");
    }
    return v.get(0);
  }

  private ReloadingSearcher root() {
    if (searchers.federated()) {
      throw new BadRequest("the web page looks inside one snapshots root: serve a single root for it");
    }
    return searchers.roots().get(0).searchers();
  }

  private static Path localRoot(ReloadingSearcher root) {
    Path local = root.source().localRoot();
    if (local == null) {
      throw new BadRequest("the web page lists and opens snapshots of a local root; this server follows a"
          + " remote one (" + root.source() + ")");
    }
    return local;
  }

  private Reply ok(Object body) throws IOException {
    return Reply.json(200, json.writeValueAsString(body));
  }

  @Override
  public void close() {
    others.close();
  }
}
