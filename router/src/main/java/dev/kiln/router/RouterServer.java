package dev.kiln.router;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.search.rerank.CrossEncoderReranker;
import dev.kiln.search.rerank.Reranker;
import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code kiln route}: the HTTP face of a {@link Router}. {@code /search} and {@code /context} (GET or
 * POST, the same parameters and answer as {@code kiln serve}; the request is parsed by the groups, so
 * a bad parameter is the same 400) and {@code /health} (each group and replica, per root when
 * federated; 503 while some group has no live replica or no snapshot is common to all). The other
 * endpoints of {@code kiln serve} describe one server (its snapshot, metrics, page) and are the
 * groups' own; the router answers 404 naming what it routes. The client's API key is passed on to the
 * groups in {@code X-Kiln-Client-Key} beside the router's own, and they narrow the search by its binding
 * as a single server does.
 */
public final class RouterServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(RouterServer.class);
  /** Bodies past this are refused, as the search server refuses them. */
  static final int MAX_BODY_BYTES = 64 * 1024;

  private final Server server;
  private final List<RouterGroups> groups;
  private final Router router;
  private final ObjectMapper json = new ObjectMapper();
  /** The header in which a group takes the client's key (protocol 4; kiln serve's {@code Route}). */
  static final String CLIENT_KEY = "X-Kiln-Client-Key";
  /** {@link RouterConfig#groupKey()}: the router's own key on every phase, or null. */
  private final String groupKey;

  private RouterServer(Server server, List<RouterGroups> groups, Router router, String groupKey) {
    this.groupKey = groupKey;
    this.server = server;
    this.groups = groups;
    this.router = router;
  }

  /**
   * Checks the groups and starts listening.
   *
   * @throws IllegalArgumentException when the groups' replicas disagree or a group does not answer
   */
  public static RouterServer start(RouterConfig config) throws Exception {
    // The reranker first: a bad model directory is the operator's to fix before any group is asked.
    Reranker reranker = config.rerankModel() == null ? null : CrossEncoderReranker.open(config.rerankModel());
    List<RouterGroups> groups;
    try {
      groups = RouterGroups.start(config);
    } catch (Exception | Error e) {
      if (reranker != null) {
        reranker.close();
      }
      throw e;
    }
    Router router = new Router(config, groups, reranker);
    QueuedThreadPool threads = new QueuedThreadPool(200, 8);
    threads.setName("kiln-route");
    Server server = new Server(threads);
    ServerConnector connector = new ServerConnector(server);
    connector.setHost(config.host());
    connector.setPort(config.port());
    server.addConnector(connector);
    RouterServer rs = new RouterServer(server, groups, router, config.groupKey());
    server.setHandler(rs.new Routes());
    try {
      server.start();
    } catch (Exception e) {
      rs.close();
      throw e;
    }
    LOG.info("routing on {}:{} to {} group(s){}; deadline {} ms, hedge {} ms, partial answers {}", config.host(),
        rs.port(), config.groups().size(), config.roots().isEmpty() ? "" : " of " + config.roots().size()
            + " federated roots " + config.roots(), config.deadlineMs(), config.hedgeMs(),
        config.allowPartial() ? "on" : "off");
    LOG.info("rerank: {}", reranker == null ? "off" : reranker.name() + " (" + config.rerankModel() + ")");
    return rs;
  }

  public int port() {
    return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
  }

  /** Blocks until the server stops. */
  public void join() throws InterruptedException {
    server.join();
  }

  private final class Routes extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      String path = Request.getPathInContext(request);
      String method = request.getMethod();
      Router.Answer answer;
      try {
        answer = switch (path) {
          case "/search" -> search("search", request, method);
          case "/context" -> search("context", request, method);
          case "/health" -> health();
          default -> error(404, "no endpoint " + path + " on a router: it routes /search and /context, and answers"
              + " /health; ask a group's kiln serve for the others");
        };
      } catch (Exception e) {
        LOG.error("{} {} failed", method, path, e);
        answer = new Router.Answer(500, "{\"error\":\"the router failed: " + e.getClass().getSimpleName() + "\"}",
            Map.of());
      }
      response.setStatus(answer.status());
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
      answer.headers().forEach((k, v) -> response.getHeaders().put(k, v));
      Content.Sink.write(response, true, answer.body(), callback);
      return true;
    }

    private Router.Answer search(String endpoint, Request request, String method) throws Exception {
      if (!method.equals("GET") && !method.equals("POST")) {
        return new Router.Answer(405, json.writeValueAsString(Map.of("error", "/" + endpoint + " takes GET, POST")),
            Map.of("Allow", "GET, POST"));
      }
      String body = null;
      if (method.equals("POST")) {
        if (request.getLength() > MAX_BODY_BYTES) {
          return error(400, "body is larger than " + MAX_BODY_BYTES + " bytes");
        }
        body = Content.Source.asString(request, StandardCharsets.UTF_8);
        if (body.length() > MAX_BODY_BYTES) {
          return error(400, "body is larger than " + MAX_BODY_BYTES + " bytes");
        }
      }
      return router.answer(endpoint, method, request.getHttpURI().getQuery(), body, groupHeaders(request));
    }

    /**
     * What every phase carries (protocol 4): the router's own key ({@code --group-key-file}, unbound),
     * which is what lets it call {@code /internal/group}, and the client's key, by which the groups narrow
     * the search, in {@link #CLIENT_KEY}. The client's key is read as {@code kiln serve} reads it: {@code
     * Authorization: Bearer KEY} first, else {@code X-Api-Key}; none is passed on as none (a keyed group
     * then answers the single server's 401).
     */
    private Map<String, String> groupHeaders(Request request) {
      Map<String, String> pass = new LinkedHashMap<>();
      if (groupKey != null) {
        pass.put("X-Api-Key", groupKey);
      }
      String auth = request.getHeaders().get(HttpHeader.AUTHORIZATION);
      String client = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7) ? auth.substring(7)
          : request.getHeaders().get("X-Api-Key");
      if (client != null && !client.isBlank()) {
        pass.put(CLIENT_KEY, client.strip());
      }
      return pass;
    }

    private Router.Answer health() throws Exception {
      Map<String, Object> h = router.health();
      return new Router.Answer("ok".equals(h.get("status")) ? 200 : 503, json.writeValueAsString(h), Map.of());
    }

    private Router.Answer error(int status, String message) throws Exception {
      return new Router.Answer(status, json.writeValueAsString(Map.of("error", message)), Map.of());
    }
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("stopping the router: {}", e.toString());
    }
    router.close();
    groups.forEach(RouterGroups::close);
  }
}
