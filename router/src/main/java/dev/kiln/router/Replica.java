package dev.kiln.router;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One replica of a shard group as the router sees it: what it last said it holds, and whether it is
 * answering. A replica that fails a call is skipped for {@link #BENCH_MS} (tried last, not never), so
 * a dead one costs one failed attempt, not one per search. Thread-safe.
 */
final class Replica {
  /** How long a replica that failed stays at the back of its group's order. */
  static final long BENCH_MS = 1000;

  private final URI uri;
  private boolean alive;
  private long benchedUntil;
  private String lastError;
  private Instant lastSeen;
  private String current;
  private List<String> held = List.of();

  Replica(URI uri) {
    this.uri = uri;
  }

  URI uri() {
    return uri;
  }

  synchronized boolean usable() {
    return alive && System.currentTimeMillis() >= benchedUntil;
  }

  synchronized boolean alive() {
    return alive;
  }

  synchronized List<String> held() {
    return held;
  }

  synchronized String lastError() {
    return lastError;
  }

  synchronized String current() {
    return current;
  }

  /** A successful {@code describe}: alive, holding these snapshots. */
  synchronized void described(JsonNode describe) {
    alive = true;
    lastSeen = Instant.now();
    current = describe.path("snapshot").asText(null);
    List<String> ids = new ArrayList<>();
    describe.path("held").forEach(n -> ids.add(n.asText()));
    held = List.copyOf(ids);
    lastError = null;
  }

  /** A 409 on a phase: it holds these now. */
  synchronized void holds(List<String> ids) {
    held = List.copyOf(ids);
    current = ids.isEmpty() ? null : ids.get(0);
  }

  synchronized void failed(String error) {
    lastError = error;
    benchedUntil = System.currentTimeMillis() + BENCH_MS;
  }

  /** A failed {@code describe}: not answering at all. */
  synchronized void down(String error) {
    failed(error);
    alive = false;
  }

  synchronized Map<String, Object> health() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("url", uri.toString());
    m.put("alive", alive);
    m.put("snapshot", current);
    m.put("held", held);
    m.put("last_seen", lastSeen == null ? null : lastSeen.toString());
    m.put("last_error", lastError);
    return m;
  }
}
