package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SnapshotFixture;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code CURRENT} replaced by a FIFO (what a reader would block on forever): the watcher refuses it
 * without opening it, {@code /health} shows the failing check and how long ago the last good one was,
 * and once {@code CURRENT} is a file again naming a new snapshot, the server reloads.
 */
class CurrentNotAFileTest {
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path root;

  private static JsonNode health(SearchServer server) throws Exception {
    return get(server, "/health");
  }

  private static JsonNode get(SearchServer server, String path) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
        + path)).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(r.body());
  }

  /** Asks {@code /health} until {@code condition} holds, for at most {@code seconds}. */
  private static JsonNode awaitHealth(SearchServer server, String what, int seconds, Predicate<JsonNode> condition)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    JsonNode h = health(server);
    for (int polls = 0; !condition.test(h); polls++) {
      assertTrue(System.nanoTime() < deadline && polls < 1_000_000, "no " + what + " within " + seconds + " s: " + h);
      h = health(server);
    }
    return h;
  }

  private static void mkfifo(Path path) throws Exception {
    Process p;
    try {
      p = new ProcessBuilder("mkfifo", path.toString()).redirectErrorStream(true).start();
    } catch (IOException e) {
      assumeTrue(false, "mkfifo is not available here: " + e.getMessage());
      return;
    }
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "mkfifo did not finish");
    assumeTrue(p.exitValue() == 0, "mkfifo failed: " + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  @Test
  void aFifoNamedCurrentIsRefusedReportedAndReloadingResumesOnceItIsAFileAgain() throws Exception {
    String a = SnapshotFixture.withVectors(c -> unit(384, c.text().length())).write(root);
    SnapshotLayout layout = new SnapshotLayout(root);
    try (ReloadingSearcher searchers = new ReloadingSearcher(root, SearchOptions.defaults(), 20);
        SearchServer server = SearchServer.start(searchers, "127.0.0.1", 0, 2)) {
      String b = SnapshotFixture.withVectors(c -> unit(384, c.text().length())).publish(false).write(root);
      Files.delete(layout.current());
      mkfifo(layout.current());

      // (A poll between the delete and mkfifo finds no CURRENT at all: wait for the FIFO's own error.)
      JsonNode failing = awaitHealth(server, "failing check of the FIFO", 30,
          h -> h.get("status").asText().equals("degraded") && !h.get("reload").has("failing_snapshot"));
      assertEquals(a, failing.get("snapshot").asText(), "the served snapshot keeps serving");
      assertFalse(failing.get("reload").has("last_error"), "/health shows no error text: " + failing);
      // The error itself is for the operator, on /snapshot (no --api-keys here: every client may read it).
      // A poll between the delete and mkfifo reported "CURRENT is missing" with the same health: the
      // next polls (every 20 ms) replace it with the FIFO's own error.
      JsonNode snapshot = get(server, "/snapshot");
      for (long deadline = System.nanoTime() + 30_000_000_000L; System.nanoTime() < deadline
          && !snapshot.get("reload").path("last_error").asText().contains("not a regular file"); ) {
        Thread.sleep(50);
        snapshot = get(server, "/snapshot");
      }
      assertTrue(snapshot.get("reload").get("last_error").asText().contains("not a regular file"), snapshot.toString());
      double age = failing.get("reload").get("last_check_ok_seconds_ago").asDouble();
      JsonNode later = awaitHealth(server, "growing age of the last good check", 30,
          h -> h.get("reload").get("last_check_ok_seconds_ago").asDouble() > age + 0.2);
      double stale = later.get("reload").get("last_check_ok_seconds_ago").asDouble();
      assertTrue(later.get("reload").get("consecutive_failures").asLong() > 1, "checks keep running: " + later);

      Files.delete(layout.current());
      Files.writeString(layout.current(), b + "\n");
      JsonNode reloaded = awaitHealth(server, "reload of " + b, 60, h -> h.get("snapshot").asText().equals(b));
      assertEquals("ok", reloaded.get("status").asText(), reloaded.toString());
      assertTrue(reloaded.get("reload").get("last_check_ok_seconds_ago").asDouble() < stale, reloaded.toString());
    }
  }

  private static float[] unit(int dimension, int seed) {
    float[] v = new float[dimension];
    v[seed % dimension] = 1;
    return v;
  }
}
