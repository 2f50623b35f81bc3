package dev.kiln.router;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A phase's calls to several groups at once, on virtual threads, and how their failures are judged. */
final class GroupCalls implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupCalls.class);

  private final boolean allowPartial;
  private final ExecutorService fanOut = Executors.newVirtualThreadPerTaskExecutor();

  GroupCalls(boolean allowPartial) {
    this.allowPartial = allowPartial;
  }

  /**
   * One phase on every group in {@code answering}, in parallel. With partial answers allowed a group
   * that is unavailable in the statistics phase is dropped from {@code answering} and its shards
   * added to {@code missing}.
   */
  Map<GroupClient, JsonNode> phase(String phase, ObjectNode request, List<GroupClient> answering,
      Map<String, String> headers, long deadline, List<String> missing, RouteTimings timings) throws RouteException {
    Map<GroupClient, ObjectNode> bodies = new LinkedHashMap<>();
    for (GroupClient g : answering) {
      ObjectNode body = request.deepCopy().put("phase", phase);
      if (phase.equals("stats") && !bodies.isEmpty()) {
        // The query is embedded once, by the first group: the others would only spend a model call
        // (most of a stats call's work) on a vector that sum() discards.
        body.put("embed", false);
      }
      bodies.put(g, body);
    }
    Map<GroupClient, Future<JsonNode>> calls = submit(phase, bodies, headers, deadline, timings);
    Map<GroupClient, JsonNode> out = new LinkedHashMap<>();
    RouteException failure = null;
    for (Map.Entry<GroupClient, Future<JsonNode>> e : calls.entrySet()) {
      try {
        out.put(e.getKey(), join(e.getValue()));
      } catch (RouteException ex) {
        if (ex.kind == RouteException.Kind.UNAVAILABLE && allowPartial && phase.equals("stats")) {
          answering.remove(e.getKey());
          missing.add(e.getKey().shards());
          LOG.warn("partial answer without group {}: {}", e.getKey().index(), ex.getMessage());
        } else if (failure == null || ex.kind == RouteException.Kind.CLIENT) {
          failure = ex;
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
    return out;
  }

  /** Each group's own body (its phase named in it), in parallel; any failure fails the whole. */
  Map<GroupClient, JsonNode> each(Map<GroupClient, ObjectNode> bodies, Map<String, String> headers, long deadline,
      RouteTimings timings) throws RouteException {
    Map<GroupClient, JsonNode> out = new LinkedHashMap<>();
    // Each body names its phase (fetch, or one of the feedback passes' chunks, rescore, term_stats, again).
    String phase = bodies.isEmpty() ? "fetch" : bodies.values().iterator().next().path("phase").asText("fetch");
    for (Map.Entry<GroupClient, Future<JsonNode>> e : submit(phase, bodies, headers, deadline, timings).entrySet()) {
      out.put(e.getKey(), join(e.getValue()));
    }
    return out;
  }

  /** Runs {@code work} on a virtual thread: a federating router's roots proceed side by side. */
  <T> Future<T> async(Callable<T> work) {
    return fanOut.submit(work);
  }

  private Map<GroupClient, Future<JsonNode>> submit(String phase, Map<GroupClient, ObjectNode> bodies,
      Map<String, String> headers, long deadline, RouteTimings timings) {
    Map<GroupClient, Future<JsonNode>> calls = new LinkedHashMap<>();
    bodies.forEach((g, body) -> {
      String text = body.toString();
      calls.put(g, fanOut.submit(() -> g.call(text, headers, deadline, timings, phase)));
    });
    return calls;
  }

  /** The call's answer; a {@link RouteException} it threw is thrown as is. */
  static <T> T join(Future<T> call) throws RouteException {
    try {
      return call.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw RouteException.unavailable(-1, "interrupted");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RouteException re) {
        throw re;
      }
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException("a shard group call failed", e.getCause());
    }
  }

  @Override
  public void close() {
    fanOut.shutdownNow();
  }
}
