package dev.kiln.router;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.Closeable;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's shard groups: one Jetty {@link HttpClient} (keep-alive connections to every replica),
 * the start-up check ({@link Topology#check}), and a poller that asks every replica what it holds
 * every {@link RouterConfig#pollMs()}, which decides the pinned snapshot and what {@code /health}
 * shows.
 */
final class RouterGroups implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(RouterGroups.class);
  private static final String DESCRIBE = "{\"phase\":\"describe\"}";
  /** How long a connection to a replica may sit unused before the router closes it. */
  static final long IDLE_TIMEOUT_MS = 5_000;
  private static final String DESCRIBE_STATUS = "describe answered HTTP ";

  private final HttpClient http;
  private final List<GroupClient> groups;
  private final ScheduledExecutorService poller;
  private final ObjectMapper json;
  private final long describeTimeoutMs;
  /** {@link RouterConfig#groupKey()}: what the router's own describes carry, or null. */
  private final String groupKey;
  /** Runs the replicas' describes side by side: a hung replica must not delay learning about the others. */
  private final ExecutorService describers = Executors.newVirtualThreadPerTaskExecutor();

  private RouterGroups(HttpClient http, List<GroupClient> groups, ObjectMapper json, long pollMs, long timeoutMs,
      String groupKey) {
    this.groupKey = groupKey;
    this.http = http;
    this.groups = groups;
    this.json = json;
    this.describeTimeoutMs = timeoutMs;
    this.poller = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "kiln-route-poll");
      t.setDaemon(true);
      return t;
    });
    var unused = poller.scheduleWithFixedDelay(this::refreshQuietly, pollMs, pollMs, TimeUnit.MILLISECONDS);
  }

  /**
   * Connects to every replica, checks them and starts polling.
   *
   * @return the groups of each root, in {@link RouterConfig#roots()} order; one entry without roots
   * @throws IllegalArgumentException when the replicas disagree (root, model, plan, shards), a group
   *     has no replica answering, or a replica cannot serve as a shard group
   */
  static List<RouterGroups> start(RouterConfig config) throws Exception {
    HttpClient http = new HttpClient();
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName("kiln-route-client");
    threads.setDaemon(true);
    http.setExecutor(threads);
    http.setMaxConnectionsPerDestination(256);
    // Below a group's own idle timeout (kiln serve's default 10 s), so that the router closes an idle
    // connection before the group does: a search sent just as the group closed it would fail.
    http.setIdleTimeout(IDLE_TIMEOUT_MS);
    http.setConnectTimeout(Math.min(1000, config.deadlineMs()));
    http.setFollowRedirects(false);
    http.start();
    ObjectMapper json = new ObjectMapper();
    try {
      List<List<JsonNode>> described = new ArrayList<>();
      List<List<String>> urls = new ArrayList<>();
      List<List<Replica>> replicas = new ArrayList<>();
      long timeout = Math.max(1000, config.deadlineMs());
      for (List<URI> g : config.groups()) {
        List<JsonNode> d = new ArrayList<>();
        List<Replica> rs = new ArrayList<>();
        for (URI uri : g) {
          Replica r = new Replica(uri);
          JsonNode answer = describe(http, json, r, timeout, config.groupKey());
          String error = r.lastError();
          if (answer == null && error != null && error.startsWith(DESCRIBE_STATUS + "403")
              && config.groupKey() != null) {
            // A tenant's key: a group answers /internal/group only to a key without bindings (protocol 4).
            throw new IllegalArgumentException("replica " + uri + " refused the router's --group-key-file key ("
                + error + "): that key is bound to metadata (a tenant's key) in the group's --api-keys file;"
                + " give the router a key without bindings");
          }
          if (answer == null && error != null && (error.startsWith(DESCRIBE_STATUS + "401")
              || error.startsWith(DESCRIBE_STATUS + "403"))) {
            throw new IllegalArgumentException("replica " + uri + " refused the router's describe (" + error
                + "): it serves with --api-keys; give the router a key of that file (--group-key-file)");
          }
          if (answer == null && error != null && error.startsWith(DESCRIBE_STATUS + "400")) {
            // A server that answers but cannot be a group (several roots federated, say): not "down".
            throw new IllegalArgumentException("replica " + uri + " cannot serve as a shard group: " + error);
          }
          d.add(answer);
          rs.add(r);
        }
        described.add(d);
        urls.add(g.stream().map(URI::toString).toList());
        replicas.add(rs);
      }
      List<List<Integer>> byRoot = Topology.partition(described, urls, config.roots());
      List<List<String>> shardsByRoot = new ArrayList<>();
      List<JsonNode> plans = new ArrayList<>();
      for (List<Integer> members : byRoot) {
        shardsByRoot.add(Topology.check(members.stream().map(described::get).toList(),
            members.stream().map(urls::get).toList()));
        plans.add(members.stream().flatMap(i -> described.get(i).stream()).filter(d -> d != null).findFirst()
            .orElseThrow().path("plan"));
      }
      Topology.checkFederation(plans, config.roots());
      Topology.checkReranker(plans, config.rerankModel());
      List<RouterGroups> out = new ArrayList<>();
      for (int r = 0; r < byRoot.size(); r++) {
        List<GroupClient> clients = new ArrayList<>();
        for (int m = 0; m < byRoot.get(r).size(); m++) {
          int i = byRoot.get(r).get(m);
          String shards = shardsByRoot.get(r).get(m);
          clients.add(new GroupClient(i, shards, replicas.get(i), http, config.hedgeMs(), json));
          LOG.info("group {}: shards {}, replicas {}", i, shards, urls.get(i));
        }
        out.add(new RouterGroups(http, clients, json, config.pollMs(), timeout, config.groupKey()));
      }
      return out;
    } catch (Exception | Error e) {
      http.stop();
      throw e;
    }
  }

  /** A replica's {@code describe}, or null (and the replica marked down) when it does not answer. */
  private static JsonNode describe(HttpClient http, ObjectMapper json, Replica r, long timeoutMs, String key) {
    try {
      Request request = http.newRequest(r.uri()).method(HttpMethod.POST)
          .path(GroupClient.PATH).body(new StringRequestContent("application/json", DESCRIBE))
          .timeout(timeoutMs, TimeUnit.MILLISECONDS);
      if (key != null) {
        request.headers(h -> h.put("X-Api-Key", key));
      }
      ContentResponse response = new CompletableResponseListener(request, GroupClient.MAX_ANSWER_BYTES).send().get();
      if (response.getStatus() != 200) {
        r.down(DESCRIBE_STATUS + response.getStatus() + ": " + response.getContentAsString());
        return null;
      }
      JsonNode node = json.readTree(response.getContentAsString());
      r.described(node);
      return node;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      r.down(e.getClass().getSimpleName() + ": " + e.getMessage());
      return null;
    }
  }

  List<GroupClient> all() {
    return groups;
  }

  /** The groups with at least one replica answering. */
  List<GroupClient> live() {
    return groups.stream().filter(GroupClient::anyAlive).toList();
  }

  /** Asks every replica what it holds, all at once; returns when all have answered or timed out. */
  void refresh() {
    List<CompletableFuture<?>> all = new ArrayList<>();
    for (GroupClient g : groups) {
      for (Replica r : g.replicas()) {
        all.add(CompletableFuture.runAsync(() -> describe(http, json, r, describeTimeoutMs, groupKey), describers));
      }
    }
    CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).join();
  }

  private void refreshQuietly() {
    try {
      refresh();
    } catch (Throwable e) {
      LOG.warn("polling the shard groups failed: {}", e.toString());
    }
  }

  /** {@code /health}: each group's shards and replicas; ok only while every group has a live replica. */
  Map<String, Object> health() {
    Map<String, Object> m = new LinkedHashMap<>();
    boolean ok = groups.stream().allMatch(GroupClient::anyAlive);
    String pinned = Topology.pin(groups);
    m.put("status", ok && pinned != null ? "ok" : "unavailable");
    m.put("snapshot", pinned);
    List<Object> gs = new ArrayList<>();
    for (GroupClient g : groups) {
      Map<String, Object> gm = new LinkedHashMap<>();
      gm.put("group", g.index());
      gm.put("shards", g.shards());
      gm.put("replicas", g.replicas().stream().map(Replica::health).toList());
      gs.add(gm);
    }
    m.put("groups", gs);
    return m;
  }

  @Override
  public void close() {
    poller.shutdownNow();
    describers.shutdownNow();
    try {
      http.stop();
    } catch (Exception e) {
      LOG.warn("stopping the HTTP client: {}", e.toString());
    }
  }
}
