package dev.kiln.search.http;

import dev.kiln.search.http.Endpoints.SearchCall;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes requests. Everything a network thread does here is short: check Host/Origin, the endpoint, the
 * API key, the method and the key's role ({@link Route}), answer {@code /health}, {@code /snapshot},
 * {@code /metrics} at once, read a POST body without blocking, parse. Searches then go to the search
 * pool, whose bounded queue answers 503 with {@code Retry-After} when full, so light endpoints never wait
 * behind searches and a burst costs memory for at most {@code threads + queue} searches. A failure is
 * answered 500 with a request id and no detail; the log has the whole exception under that id.
 */
final class SearchHandler extends Handler.Abstract {
  private static final Logger LOG = LoggerFactory.getLogger(SearchHandler.class);
  /** Bodies past this are refused before parsing: a query is at most 8 KiB plus a little JSON. */
  static final int MAX_BODY_BYTES = 64 * 1024;
  /**
   * Of a body past {@link #MAX_BODY_BYTES}, this much more is read and dropped before the 400, so the
   * answer reaches the client instead of a connection reset; a body declared longer still is refused
   * at once.
   */
  static final int DRAIN_BYTES = 1024 * 1024;

  private final Endpoints endpoints;
  private final ServerMetrics metrics;
  private final HostGuard hosts;
  private final ApiKeys keys;
  private final ExecutorService searchPool;
  private final long bodyTimeoutMs;
  private final String busyMessage;
  private final HeaderDeadline headers;

  SearchHandler(Endpoints endpoints, ServerMetrics metrics, HostGuard hosts, ApiKeys keys,
      ExecutorService searchPool, ServerConfig config, HeaderDeadline headers) {
    super(InvocationType.NON_BLOCKING);
    this.headers = headers;
    this.endpoints = endpoints;
    this.metrics = metrics;
    this.hosts = hosts;
    this.keys = keys;
    this.searchPool = searchPool;
    this.bodyTimeoutMs = config.idleTimeoutMs();
    this.busyMessage = "server busy: " + config.threads() + " searches running and " + config.queue()
        + " waiting; retry after a second";
  }

  /**
   * A refusal sent before the request's body is read closes the connection when there is a body: the
   * unread bytes would otherwise be where the next request on it is expected, and a keep-alive client
   * that reused the connection as Jetty discards it got no answer at all (seen as "header parser
   * received no bytes").
   */
  private static Reply closing(Request request, Reply reply) {
    HttpFields h = request.getHeaders();
    boolean body = h.getLongField(HttpHeader.CONTENT_LENGTH) > 0 || h.contains(HttpHeader.TRANSFER_ENCODING);
    return body ? reply.withHeader("Connection", "close") : reply;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String path = request.getHttpURI().getPath();
    Route route = Route.of(path);
    Exchange ex = new Exchange(request, response, headers.track(request, callback), route.label, metrics);
    String refusal = hosts.refusal(request.getHeaders().get(HttpHeader.HOST),
        request.getHeaders().get(HttpHeader.ORIGIN));
    if (refusal != null) {
      ex.send(closing(request, Reply.error(403, refusal)));
      return true;
    }
    if (route == Route.UNKNOWN) {
      ex.send(closing(request, Reply.error(404, "no endpoint " + path + ": use /search, /context, /health, /snapshot, /metrics or /openapi.json")));
      return true;
    }
    ApiKeys.Key key = null;
    if (keys != null && route.access != Route.Access.OPEN) {
      key = keys.lookup(presentedKey(request));
      if (key == null) {
        ex.send(closing(request, keyRequired()));
        return true;
      }
    }
    if (!route.allows(request.getMethod())) {
      ex.send(closing(request, Reply.error(405, route.path + " takes " + route.allow()).withHeader("Allow", route.allow())));
      return true;
    }
    if (key != null && key.bound() && route.access == Route.Access.UNBOUND_KEY) {
      ex.send(Reply.error(403, "this API key is bound to metadata (line " + key.line() + " of the keys file): "
          + route.path + " describes the whole service and needs a key without bindings"));
      return true;
    }
    if (key != null && key.bound() && route.access == Route.Access.ROUTER) {
      ex.send(closing(request, Reply.error(403, "this API key is bound to metadata (line " + key.line()
          + " of the keys file): " + route.path + " is for routers (kiln route --group-key-file with a key without"
          + " bindings); search through /search or a router")));
      return true;
    }
    switch (route) {
      case HEALTH -> inline(ex, endpoints::health);
      case SNAPSHOT -> inline(ex, endpoints::snapshot);
      case METRICS -> inline(ex, endpoints::metrics);
      case OPENAPI -> inline(ex, OpenApiDocument::reply);
      case SEARCH, CONTEXT -> readThenQueue(ex, key);
      // The group's phases are narrowed by the router's client's key, checked when the phase is known.
      // From here on a group's "key" is its router's client's (null: absent or unknown, answered 401 by
      // every phase but describe, which is the router's own).
      case GROUP -> readThenQueue(ex, keys == null ? null
          : keys.lookup(strip(request.getHeaders().get(Route.CLIENT_KEY_HEADER))));
      case UI -> ex.send(endpoints.ui.get(path));
      case SNAPSHOTS -> inline(ex, endpoints.inspection::snapshots);
      case MANIFEST -> inline(ex, () -> endpoints.inspection.manifest(request.getHttpURI().getQuery()));
      case EXPLAIN -> pooled(ex, endpoints.inspection::explain, key);
      case UNKNOWN -> throw new IllegalStateException("answered 404 above");
    }
    return true;
  }

  /** The 401 of a missing or unknown key; a group answers it for its router's client too. */
  static Reply keyRequired() {
    return Reply.error(401, "a valid API key is required: Authorization: Bearer KEY or X-Api-Key: KEY")
        .withHeader("WWW-Authenticate", "Bearer realm=\"kiln\"");
  }

  private static String strip(String header) {
    return header == null ? null : header.strip();
  }

  private static String presentedKey(Request request) {
    String auth = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return auth.substring(7).strip();
    }
    String header = request.getHeaders().get("X-Api-Key");
    return header == null ? null : header.strip();
  }

  private interface LightEndpoint {
    Reply answer() throws IOException;
  }

  private void inline(Exchange ex, LightEndpoint endpoint) {
    try {
      ex.send(endpoint.answer());
    } catch (BadRequest e) {
      ex.send(Reply.error(400, e.getMessage()));
    } catch (SnapshotUnavailable e) {
      ex.send(Reply.error(503, e.getMessage()));
    } catch (IOException | RuntimeException e) {
      ex.send(failed(ex, e));
    }
  }

  private interface KeyedEndpoint {
    Reply answer(String rawQuery, ApiKeys.Key key) throws IOException;
  }

  /** A GET that searches, so it runs on the search pool under the same bound as searches. */
  private void pooled(Exchange ex, KeyedEndpoint endpoint, ApiKeys.Key key) {
    String query = ex.request.getHttpURI().getQuery();
    ex.request.addIdleTimeoutListener(t -> false);
    try {
      searchPool.execute(() -> inline(ex, () -> endpoint.answer(query, key)));
    } catch (RejectedExecutionException e) {
      metrics.rejected();
      ex.send(Reply.error(503, busyMessage).withHeader("Retry-After", "1"));
    }
  }

  private void readThenQueue(Exchange ex, ApiKeys.Key key) {
    if (!ex.request.getMethod().equals("POST")) {
      queue(ex, key, null);
      return;
    }
    long declared = ex.request.getLength();
    if (declared > MAX_BODY_BYTES + DRAIN_BYTES) {
      ex.send(Reply.error(400, "body is larger than " + MAX_BODY_BYTES + " bytes").withHeader("Connection", "close"));
      return;
    }
    // Read without holding a thread; the whole body must arrive within the idle timeout.
    // Both outcomes are handled in whenComplete; the future it returns has nothing left to report.
    CompletableFuture<?> unused = BoundedBody.read(ex.request, MAX_BODY_BYTES, DRAIN_BYTES)
        .orTimeout(bodyTimeoutMs, TimeUnit.MILLISECONDS)
        .whenComplete((body, failure) -> {
          if (failure == null) {
            queue(ex, key, body);
          } else {
            bodyFailed(ex, failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure);
          }
        });
  }

  private void bodyFailed(Exchange ex, Throwable failure) {
    if (failure instanceof TimeoutException) {
      metrics.timedOut("body");
      ex.send(Reply.error(408, "the request body did not arrive within " + bodyTimeoutMs + " ms")
          .withHeader("Connection", "close"));
    } else if (failure instanceof BoundedBody.TooLarge) {
      ex.send(Reply.error(400, "body is larger than " + MAX_BODY_BYTES + " bytes").withHeader("Connection", "close"));
    } else {
      ex.send(Reply.error(400, "the request body could not be read: " + failure.getMessage())
          .withHeader("Connection", "close"));
    }
  }

  /** A 500 that tells the client only a request id; the log has the exception under it. */
  private static Reply failed(Exchange ex, Throwable e) {
    String id = Reply.newRequestId();
    LOG.error("request {}: {} {} failed", id, ex.request.getMethod(), ex.endpoint, e);
    return Reply.internalError(500, id);
  }

  private void queue(Exchange ex, ApiKeys.Key key, byte[] body) {
    if (ex.endpoint.equals("group")) {
      queueGroup(ex, key, body);
      return;
    }
    SearchCall call;
    try {
      call = endpoints.parse(ex.endpoint, ex.request.getMethod(), ex.request.getHttpURI().getQuery(), body);
    } catch (BadRequest | IllegalArgumentException e) {
      ex.send(Reply.error(400, e.getMessage()));
      return;
    }
    // From here the queue bounds how long the request waits, not the connection's idle timeout.
    ex.request.addIdleTimeoutListener(t -> false);
    try {
      searchPool.execute(() -> runQueued(ex, call, key));
    } catch (RejectedExecutionException e) {
      metrics.rejected();
      ex.send(Reply.error(503, busyMessage).withHeader("Retry-After", "1"));
    }
  }

  private void runQueued(Exchange ex, SearchCall call, ApiKeys.Key key) {
    ClientProbe.State client = ClientProbe.probe(ex.request);
    if (client == ClientProbe.State.GONE) {
      metrics.abandoned();
      ex.abandon();
      return;
    }
    Reply reply;
    try {
      reply = endpoints.run(call, key);
    } catch (BadRequest e) {
      reply = Reply.error(400, e.getMessage());
    } catch (SnapshotUnavailable e) {
      reply = Reply.error(503, e.getMessage());
    } catch (RuntimeException | IOException | Error e) {
      // Errors too (a native library, an exhausted heap): a client must always get an answer.
      reply = failed(ex, e);
    }
    ex.send(client == ClientProbe.State.PIPELINED ? reply.withHeader("Connection", "close") : reply);
  }

  /**
   * A shard group's phase for a router: parsed and run on the search pool, as a search is. The answer's
   * {@code Server-Timing} says how long it waited for the pool ({@code queue}) and ran ({@code group}),
   * so that the router can tell its hop from the group's work.
   */
  private void queueGroup(Exchange ex, ApiKeys.Key key, byte[] body) {
    ex.request.addIdleTimeoutListener(t -> false);
    long queued = System.nanoTime();
    try {
      searchPool.execute(() -> {
        long started = System.nanoTime();
        Reply reply;
        try {
          reply = endpoints.group(body, keys != null, key);
        } catch (BadRequest | IllegalArgumentException e) {
          reply = Reply.error(400, e.getMessage());
        } catch (SnapshotNotHeld e) {
          reply = Reply.error(409, e.getMessage()).withHeader("X-Kiln-Held", String.join(",", e.held()));
        } catch (SnapshotUnavailable e) {
          reply = Reply.error(503, e.getMessage());
        } catch (RuntimeException | IOException | Error e) {
          reply = failed(ex, e);
        }
        long done = System.nanoTime();
        ex.send(reply.withHeader("Server-Timing", String.format(Locale.ROOT, "queue;dur=%.2f, group;dur=%.2f",
            (started - queued) / 1e6, (done - started) / 1e6)));
      });
    } catch (RejectedExecutionException e) {
      metrics.rejected();
      ex.send(Reply.error(503, busyMessage).withHeader("Retry-After", "1"));
    }
  }
}
