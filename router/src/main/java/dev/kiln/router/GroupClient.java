package dev.kiln.router;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;

/**
 * The replicas of one shard group and how a call reaches one of them: usable replicas first, in
 * turn; on an error, a timeout or a 409 (snapshot not held) the next replica; with hedging, the next
 * one also once the first has been silent for the hedge delay, first answer wins. Every attempt is
 * bounded by the search's deadline. A 4xx other than 409 is the client's fault and is answered as
 * is, without trying another replica.
 */
final class GroupClient {
  /** Largest phase answer accepted (a fetch of 1,000 hits with their texts). */
  static final int MAX_ANSWER_BYTES = 32 * 1024 * 1024;
  static final String PATH = "/internal/group";

  private final int index;
  private final String shards;
  private final List<Replica> replicas;
  private final HttpClient http;
  private final long hedgeMs;
  private final ObjectMapper json;
  private final AtomicInteger turn = new AtomicInteger();

  GroupClient(int index, String shards, List<Replica> replicas, HttpClient http, long hedgeMs, ObjectMapper json) {
    this.index = index;
    this.shards = shards;
    this.replicas = List.copyOf(replicas);
    this.http = http;
    this.hedgeMs = hedgeMs;
    this.json = json;
  }

  int index() {
    return index;
  }

  /** The shards this group serves, as its replicas describe them ({@code 0-1}). */
  String shards() {
    return shards;
  }

  List<Replica> replicas() {
    return replicas;
  }

  boolean anyAlive() {
    return replicas.stream().anyMatch(Replica::alive);
  }

  /** Usable replicas first, rotating the start so that load spreads; benched ones last. */
  private List<Replica> order() {
    int start = Math.floorMod(turn.getAndIncrement(), replicas.size());
    List<Replica> usable = new ArrayList<>();
    List<Replica> benched = new ArrayList<>();
    for (int i = 0; i < replicas.size(); i++) {
      Replica r = replicas.get((start + i) % replicas.size());
      (r.usable() ? usable : benched).add(r);
    }
    usable.addAll(benched);
    return usable;
  }

  /** A phase's answer from one replica. */
  JsonNode call(String body, Map<String, String> headers, long deadlineNanos) throws RouteException {
    return call(body, headers, deadlineNanos, null, null);
  }

  /**
   * A phase's answer from one replica; the answering call's round trip and the group's own handling
   * time are recorded in {@code timings} under {@code phase} (when not null).
   */
  JsonNode call(String body, Map<String, String> headers, long deadlineNanos, RouteTimings timings, String phase)
      throws RouteException {
    List<Replica> order = order();
    List<CompletableFuture<Outcome>> inflight = new ArrayList<>();
    Set<String> held = new LinkedHashSet<>();
    boolean notHeld = false;
    String lastError = "no replica answered";
    int next = 0;
    while (true) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
      if (left <= 0) {
        inflight.forEach(f -> f.cancel(true));
        throw RouteException.unavailable(index, "deadline passed waiting for group " + index + " (shards " + shards
            + "): " + lastError);
      }
      if (inflight.isEmpty()) {
        if (next == order.size()) {
          break;
        }
        inflight.add(send(order.get(next++), body, headers, left));
      }
      boolean canHedge = hedgeMs > 0 && next < order.size();
      long wait = canHedge ? Math.min(left, hedgeMs) : left;
      Outcome done = firstDone(inflight, wait);
      if (done == null) {
        if (canHedge) {
          inflight.add(send(order.get(next++), body, headers, left));
        }
        continue;
      }
      switch (done.kind) {
        case OK -> {
          inflight.forEach(f -> f.cancel(true));
          if (timings != null) {
            timings.call(index, phase, done.roundTripNanos, done.serverTiming);
          }
          return done.body;
        }
        case CLIENT_ERROR -> {
          inflight.forEach(f -> f.cancel(true));
          throw RouteException.client(done.status, done.body);
        }
        case NOT_HELD -> {
          notHeld = true;
          held.addAll(done.replica.held());
        }
        case FAILED -> lastError = done.replica.uri() + ": " + done.error;
      }
    }
    if (notHeld) {
      throw RouteException.notHeld(index, List.copyOf(held));
    }
    throw RouteException.unavailable(index, "no replica of group " + index + " (shards " + shards + ") answered: "
        + lastError);
  }

  private static Outcome firstDone(List<CompletableFuture<Outcome>> inflight, long waitMs) {
    try {
      CompletableFuture.anyOf(inflight.toArray(new CompletableFuture<?>[0])).get(Math.max(1, waitMs),
          TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a shard group", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("a replica call failed unexpectedly", e.getCause());
    }
    for (int i = 0; i < inflight.size(); i++) {
      if (inflight.get(i).isDone()) {
        return inflight.remove(i).join();
      }
    }
    return null;
  }

  private CompletableFuture<Outcome> send(Replica replica, String body, Map<String, String> headers, long timeoutMs) {
    Request request = http.newRequest(replica.uri()).method(HttpMethod.POST).path(PATH)
        .body(new StringRequestContent("application/json", body))
        .timeout(timeoutMs, TimeUnit.MILLISECONDS)
        .headers(h -> headers.forEach(h::put));
    long sent = System.nanoTime();
    return new CompletableResponseListener(request, MAX_ANSWER_BYTES).send()
        .handle((response, failure) -> outcome(replica, response, failure, System.nanoTime() - sent));
  }

  private Outcome outcome(Replica replica, ContentResponse response, Throwable failure, long roundTripNanos) {
    if (failure != null) {
      String why = failure.getClass().getSimpleName() + ": " + failure.getMessage();
      replica.failed(why);
      return new Outcome(Kind.FAILED, replica, 0, null, why);
    }
    Outcome done = outcome(replica, response);
    return done.kind == Kind.OK
        ? new Outcome(Kind.OK, replica, done.status, done.body, null, roundTripNanos,
            response.getHeaders().get("Server-Timing"))
        : done;
  }

  private Outcome outcome(Replica replica, ContentResponse response) {
    int status = response.getStatus();
    JsonNode node;
    try {
      node = json.readTree(response.getContentAsString());
    } catch (IOException e) {
      replica.failed("answer " + status + " is not JSON");
      return new Outcome(Kind.FAILED, replica, status, null, "answer " + status + " is not JSON");
    }
    if (status == 200) {
      return new Outcome(Kind.OK, replica, status, node, null);
    }
    if (status == 409) {
      String header = response.getHeaders().get("X-Kiln-Held");
      replica.holds(header == null || header.isEmpty() ? List.of() : Arrays.asList(header.split(",")));
      return new Outcome(Kind.NOT_HELD, replica, status, node, null);
    }
    if (status >= 400 && status < 500) {
      return new Outcome(Kind.CLIENT_ERROR, replica, status, node, null);
    }
    String why = "HTTP " + status + ": " + node.path("error").asText("");
    replica.failed(why);
    return new Outcome(Kind.FAILED, replica, status, node, why);
  }

  private enum Kind { OK, CLIENT_ERROR, NOT_HELD, FAILED }

  /** A replica's answer; the round trip and the group's {@code Server-Timing} only for an OK. */
  private record Outcome(Kind kind, Replica replica, int status, JsonNode body, String error, long roundTripNanos,
      String serverTiming) {
    Outcome(Kind kind, Replica replica, int status, JsonNode body, String error) {
      this(kind, replica, status, body, error, 0, null);
    }
  }
}
