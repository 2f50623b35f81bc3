package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.ShardSelection;
import dev.kiln.search.SnapshotFixture;
import dev.kiln.search.Tampering;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln serve} over a snapshot whose shard file has a byte flipped after it was opened (same
 * size, same inode, the old modification time put back: nothing but the bytes tell, so the open took
 * the file on its {@code VERIFIED} record's word): the background verification finds it, the server
 * stops answering from it — from the snapshot before it if there is one, else with 503 — and
 * {@code /health} says why. The background verification runs when the test says, on the test's
 * thread, so that the flip happens after the open and before the hashing, every time.
 */
class ServedSnapshotIntegrityTest {
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path root;

  /** Holds the background verifications until {@link #runAll}. */
  private static final class Gate implements Executor {
    private final Queue<Runnable> held = new ConcurrentLinkedQueue<>();

    @Override
    public void execute(Runnable task) {
      held.add(task);
    }

    int runAll() {
      int n = 0;
      for (Runnable r = held.poll(); r != null; r = held.poll()) {
        r.run();
        n++;
      }
      return n;
    }
  }

  private static HttpResponse<String> get(SearchServer server, String pathAndQuery) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A published snapshot written well before it was verified, so that its record vouches for its files. */
  private String verifiedSnapshot() throws Exception {
    String id = SnapshotFixture.withVectors(c -> unit(384, c.text().length())).write(root);
    Tampering.backdate(new SnapshotLayout(root).snapshotDir(id), Duration.ofMinutes(10));
    assertEquals(List.of(), new SnapshotStore(root).verifyAndRecord(id, "publish"));
    return id;
  }

  private Path victim(String id) throws Exception {
    return Tampering.segmentFile(new SnapshotLayout(root).shardDir(id, 0));
  }

  private ReloadingSearcher searchers(Gate gate) {
    return new ReloadingSearcher(SnapshotSource.local(root), SearchOptions.defaults(),
        ReloadSettings.polling(0).withVerifier(gate));
  }

  @Test
  void aFlipAfterOpenIsFoundInTheBackgroundAndNothingIsAnsweredFromIt() throws Exception {
    String id = verifiedSnapshot();
    Path victim = victim(id);
    String name = "shard-00000/" + victim.getFileName();
    Gate gate = new Gate();
    try (ReloadingSearcher searchers = searchers(gate);
        SearchServer server = SearchServer.start(searchers, "127.0.0.1", 0, 2)) {
      try (ReloadingSearcher.Lease lease = searchers.acquire()) {
        assertFalse(lease.searcher().hashedAtOpen(), "opened on the record's word");
      }
      assertEquals(200, get(server, "/search?q=volcano&mode=bm25").statusCode());
      JsonNode before = JSON.readTree(get(server, "/health").body());
      assertEquals("pending", before.get("reload").get("verification").get("state").asText(), before.toString());

      Tampering.flipInPlaceKeepingTime(victim);
      assertEquals(1, gate.runAll(), "one background verification");

      HttpResponse<String> health = get(server, "/health");
      assertEquals(503, health.statusCode(), health.body());
      JsonNode h = JSON.readTree(health.body());
      assertEquals("unavailable", h.get("status").asText(), h.toString());
      JsonNode verification = h.get("reload").get("verification");
      assertEquals("failed", verification.get("state").asText(), h.toString());
      assertEquals(id, verification.get("snapshot").asText());
      assertFalse(verification.has("error") || h.get("reload").has("last_error"), "/health names no file: " + h);
      assertEquals(id, h.get("reload").get("failing_snapshot").asText(), h.toString());

      for (String endpoint : List.of("/search?q=volcano&mode=bm25", "/context?q=volcano&mode=bm25", "/snapshot")) {
        HttpResponse<String> r = get(server, endpoint);
        assertEquals(503, r.statusCode(), endpoint + ": " + r.body());
        String error = JSON.readTree(r.body()).get("error").asText();
        assertTrue(error.contains(id) && error.contains(name), endpoint + ": " + error);
      }
      assertTrue(new SnapshotStore(root).verifiedRecord(id).isEmpty(), "the record that vouched for it is gone");
    }
  }

  @Test
  void aGroupsBackgroundVerificationCoversItsOwnShardsOnly() throws Exception {
    String id = verifiedSnapshot();
    Gate gate = new Gate();
    try (ReloadingSearcher searchers = new ReloadingSearcher(SnapshotSource.local(root), SearchOptions.defaults(),
            ReloadSettings.polling(0).withVerifier(gate).withShards(ShardSelection.parse("1")));
        SearchServer server = SearchServer.start(searchers, "127.0.0.1", 0, 2)) {
      try (ReloadingSearcher.Lease lease = searchers.acquire()) {
        assertFalse(lease.searcher().hashedAtOpen(), "opened on the record's word");
      }
      Tampering.flipInPlaceKeepingTime(victim(id)); // shard 0: another group's, never looked at
      assertEquals(1, gate.runAll(), "one background verification");
      JsonNode h = JSON.readTree(get(server, "/health").body());
      assertEquals("ok", h.get("status").asText(), h.toString());
      JsonNode verification = h.get("reload").get("verification");
      assertEquals("verified", verification.get("state").asText(), h.toString());
      assertEquals(new SnapshotStore(root).manifest(id).shards().get(1).servingFiles().size(),
          verification.get("files").asLong(), "shard 1's files, and only those: " + h);
    }
  }

  @Test
  void aFlipAfterAReloadFallsBackToThePreviousSnapshot() throws Exception {
    String a = verifiedSnapshot();
    Gate gate = new Gate();
    try (ReloadingSearcher searchers = searchers(gate);
        SearchServer server = SearchServer.start(searchers, "127.0.0.1", 0, 2)) {
      gate.runAll();
      String b = verifiedSnapshot();
      assertTrue(searchers.checkNow(), "reloaded " + b);
      JsonNode search = JSON.readTree(get(server, "/search?q=volcano&mode=bm25").body());
      assertEquals(b, search.get("snapshot").asText());

      Path victim = victim(b);
      Tampering.flipInPlaceKeepingTime(victim);
      assertEquals(1, gate.runAll());

      HttpResponse<String> health = get(server, "/health");
      assertEquals(200, health.statusCode(), health.body());
      JsonNode h = JSON.readTree(health.body());
      assertEquals("degraded", h.get("status").asText(), h.toString());
      assertEquals(a, h.get("snapshot").asText(), h.toString());
      assertEquals(b, h.get("reload").get("failing_snapshot").asText(), h.toString());
      assertFalse(h.get("reload").has("last_error"), "/health names no file: " + h);
      // The operator reads which file failed on /snapshot (no --api-keys here: every client may).
      JsonNode described = JSON.readTree(get(server, "/snapshot").body());
      assertTrue(described.get("reload").get("last_error").asText().contains("shard-00000/" + victim.getFileName()),
          described.toString());
      assertEquals("verified_at_open", h.get("reload").get("verification").get("state").asText(),
          "the snapshot fallen back to was hashed whole: " + h);
      search = JSON.readTree(get(server, "/search?q=volcano&mode=bm25").body());
      assertEquals(a, search.get("snapshot").asText(), search.toString());
      assertFalse(search.get("results").isEmpty());

      // CURRENT still names b: a later check does not put it back (its record is gone, its bytes are wrong).
      try {
        assertFalse(searchers.checkNow(), "backing off");
      } catch (SnapshotException e) {
        assertTrue(e.getMessage().contains("failed verification"), e.getMessage()); // tried again, every file hashed
      }
      assertEquals(a, searchers.currentId());
    }
  }

  private static float[] unit(int dimension, int seed) {
    float[] v = new float[dimension];
    v[seed % dimension] = 1;
    return v;
  }
}
