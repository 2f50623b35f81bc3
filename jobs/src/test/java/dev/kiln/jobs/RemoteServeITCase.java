package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.config.BuildConfig;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.KilnProcess;
import dev.kiln.testing.S3Server;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln serve --snapshots s3://…} (a real server process) follows the bucket's {@code CURRENT}
 * while searches run the whole time: a newly published snapshot is downloaded, verified and swapped in
 * with every search answered; a snapshot with a flipped byte is refused (serving stays, {@code /health}
 * says degraded) and taken once the object is repaired; the cache keeps the served and the previous
 * snapshot only.
 */
class RemoteServeITCase {
  static final String BUCKET = "kiln";
  static final String ROOT = "s3://" + BUCKET + "/snapshots";
  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @TempDir static Path work;
  static S3Server server;
  static Map<String, String> s3;
  static Path config;
  static String v1;
  static String v2;
  static String v3;

  @BeforeAll
  static void buildThreeSnapshots() throws Exception {
    server = new S3Server(work.resolve("blobs"), BUCKET);
    s3 = server.settings();
    Path fixture = Path.of(RemoteServeITCase.class.getResource("/fixture").toURI());
    server.put("corpus/corpus.jsonl", Files.readAllBytes(fixture.resolve("corpus.jsonl")));
    v1 = build(true);
    // v2 and v3 hold one more document, and are built but not published yet.
    server.put("corpus/aurora.jsonl", ("{\"_id\": \"aurora\", \"title\": \"Auroras\", \"text\": \"Auroras glow when"
        + " charged particles from the solar wind strike oxygen and nitrogen high in the atmosphere.\"}\n")
        .getBytes(StandardCharsets.UTF_8));
    v2 = build(false);
    v3 = build(false);
    config = Files.writeString(work.resolve("serve.yaml"), "filesystem:\n"
        + "  s3.endpoint: " + s3.get("s3.endpoint") + "\n"
        + "  s3.path.style.access: true\n"
        + "  s3.access-key: " + S3Server.ACCESS + "\n"
        + "  s3.secret-key: " + S3Server.SECRET + "\n");
  }

  static String build(boolean publish) throws Exception {
    BuildConfig c = new BuildConfig();
    c.filesystem.putAll(s3);
    c.corpus = List.of("s3://" + BUCKET + "/corpus");
    c.snapshots = ROOT;
    c.shards = 2;
    c.parallelism = 2;
    c.chunker.size = 48;
    c.chunker.overlap = 8;
    c.ingest.maxBadFraction = 0.5;
    c.publish = publish;
    return new SnapshotBuilder(c, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2)).snapshotId();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void followsCurrentWithEverySearchAnsweredRefusesACorruptSnapshotAndPrunesItsCache() throws Exception {
    Path cache = work.resolve("cache");
    KilnProcess serve = KilnProcess.start(work, "serve", null, false, List.of("-Dkiln.cache.dir=" + cache),
        List.of("serve", "--snapshots", ROOT, "--config", config.toString(), "--port", "0", "--poll-ms", "200",
            "--threads", "2"));
    Searches searches = new Searches();
    try {
      int port = awaitPort(serve);
      assertEquals(v1, get(port, "/snapshot").get("snapshot").asText());
      searches.start(port, 2);
      searches.await("searches on " + v1, () -> searches.answeredFrom(v1) >= 5);

      // Publish v2 through the protocol: the server downloads, verifies and swaps it in.
      CliRun publish = CliRun.of("snapshots", "publish", v2, "--snapshots", ROOT, "--config", config.toString());
      assertEquals(0, publish.exitCode(), publish.err());
      awaitSnapshot(port, v2, serve);
      JsonNode aurora = get(port, "/search?q=" + enc("charged particles solar wind oxygen") + "&k=3&mode=bm25");
      assertEquals("aurora", aurora.get("results").get(0).get("doc_id").asText(), "v2's new document is served");
      searches.await("searches on " + v2, () -> searches.answeredFrom(v2) >= 5);

      // v3 with one flipped byte in a shard file, named by CURRENT behind the protocol's back.
      String key = largestShardFile(v3);
      byte[] good = server.bytes(key);
      byte[] bad = good.clone();
      bad[bad.length / 2] ^= 0x01;
      server.put(key, bad);
      server.put("snapshots/CURRENT", (v3 + "\n").getBytes(StandardCharsets.UTF_8));
      searches.await("/health degraded", () -> {
        JsonNode h = getQuietly(port, "/health");
        return h != null && "degraded".equals(h.get("status").asText())
            && v3.equals(h.path("reload").path("failing_snapshot").asText());
      });
      JsonNode health = get(port, "/health");
      assertEquals(v2, health.get("snapshot").asText(), "the verified snapshot keeps serving");
      assertFalse(health.get("reload").has("last_error"), "/health shows anyone no error text: " + health);
      JsonNode snapshot = get(port, "/snapshot");
      assertEquals(v2, snapshot.get("snapshot").asText());
      assertTrue(snapshot.get("reload").get("last_error").asText().contains("failed verification"), snapshot.toString());
      String metrics = HTTP.send(request(port, "/metrics"), HttpResponse.BodyHandlers.ofString()).body();
      assertTrue(metrics.contains("kiln_snapshot_reload_failing 1"), metrics);
      assertTrue(health.get("reload").has("next_attempt"), "the broken snapshot is retried after a back-off: " + health);

      // Repaired: taken at the next attempt; the cache then holds v3 and v2, v1 is gone.
      server.put(key, good);
      awaitSnapshot(port, v3, serve);
      searches.await("searches on " + v3, () -> searches.answeredFrom(v3) >= 5);
      assertEquals("ok", get(port, "/health").get("status").asText());
      searches.stop();
      System.out.printf("RemoteServeITCase: %d searches, by status %s, by snapshot %s%n", searches.total(),
          searches.statuses(), searches.snapshots);
      assertEquals(Map.of(200, searches.total()), searches.statuses(), "every search answered 200");
      assertTrue(searches.total() >= 15, "searches ran the whole time: " + searches.total());
      // The reload thread tidies the cache just after the swap became visible, so wait for it a while.
      assertEquals(Set.of(v2, v3), awaitCached(cache, Set.of(v2, v3)), "served and previous snapshot kept, v1 removed");
    } finally {
      searches.halt();
      serve.kill9();
    }
    String log = serve.log();
    assertTrue(log.contains("failed verification"), log);
  }

  /**
   * The largest shard file {@code id} holds itself (not one it references from the snapshot it
   * continues: flipping that would damage the earlier snapshots too), as a bucket key.
   */
  static String largestShardFile(String id) throws Exception {
    String dir = "snapshots/snapshots/" + id + "/";
    Manifest m = SnapshotStore.json().readValue(server.bytes(dir + "manifest.json"), Manifest.class);
    String best = null;
    long size = -1;
    for (Manifest.ShardEntry shard : m.shards()) {
      for (Manifest.FileEntry f : shard.files()) {
        if (f.snapshot() == null && f.size() > size && !f.name().equals(SnapshotLayout.SHARD_FINGERPRINTS)) {
          best = dir + shard.directory() + "/" + f.name();
          size = f.size();
        }
      }
    }
    return best;
  }

  static Set<String> cachedSnapshots(Path cache) throws Exception {
    Path snapshots;
    try (Stream<Path> dirs = Files.list(cache.resolve("remote-snapshots"))) {
      snapshots = dirs.filter(d -> d.getFileName().toString().endsWith(".serve-1")).findFirst().orElseThrow()
          .resolve("snapshots");
    }
    try (Stream<Path> ids = Files.list(snapshots)) {
      return ids.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
    }
  }

  /** The snapshots in the serving cache once they are {@code expected}, or as they are after 30 s. */
  static Set<String> awaitCached(Path cache, Set<String> expected) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    Set<String> now = cachedSnapshots(cache);
    while (!now.equals(expected) && System.nanoTime() < deadline) {
      Thread.sleep(50);
      now = cachedSnapshots(cache);
    }
    return now;
  }

  static int awaitPort(KilnProcess serve) throws Exception {
    Pattern serving = Pattern.compile("serving snapshot \\S+ on http://127\\.0\\.0\\.1:(\\d+)");
    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (System.nanoTime() < deadline) {
      Matcher m = serving.matcher(serve.log());
      if (m.find()) {
        return Integer.parseInt(m.group(1));
      }
      if (serve.exited()) {
        throw new AssertionError("kiln serve exited:\n" + serve.log());
      }
      Thread.sleep(100);
    }
    throw new AssertionError("kiln serve did not start:\n" + serve.log());
  }

  static void awaitSnapshot(int port, String id, KilnProcess serve) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < deadline) {
      JsonNode s = getQuietly(port, "/snapshot");
      if (s != null && id.equals(s.get("snapshot").asText())) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the server did not move to " + id + ":\n" + serve.log());
  }

  static HttpRequest request(int port, String pathAndQuery) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
        .timeout(Duration.ofSeconds(60)).build();
  }

  static JsonNode get(int port, String pathAndQuery) throws Exception {
    HttpResponse<String> r = HTTP.send(request(port, pathAndQuery), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), pathAndQuery + ": " + r.body());
    return JSON.readTree(r.body());
  }

  static JsonNode getQuietly(int port, String pathAndQuery) {
    try {
      return get(port, pathAndQuery);
    } catch (Exception | AssertionError e) {
      return null;
    }
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /** Clients searching in a loop; every answer's status and snapshot is counted. */
  static final class Searches {
    private static final List<String> QUERIES = List.of("sourdough starter lactobacilli", "emperor penguins egg",
        "stratovolcano lava ash", "register allocation graph colouring");
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final ConcurrentMap<Integer, Long> statuses = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Long> snapshots = new ConcurrentHashMap<>();
    private final AtomicLong total = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    void start(int port, int clients) {
      for (int i = 0; i < clients; i++) {
        int first = i;
        Thread t = new Thread(() -> {
          for (int n = first; running.get(); n++) {
            try {
              HttpResponse<String> r = HTTP.send(request(port, "/search?q=" + enc(QUERIES.get(n % QUERIES.size()))
                  + "&k=3&mode=bm25"), HttpResponse.BodyHandlers.ofString());
              statuses.merge(r.statusCode(), 1L, Long::sum);
              if (r.statusCode() == 200) {
                snapshots.merge(JSON.readTree(r.body()).get("snapshot").asText(), 1L, Long::sum);
              }
              total.incrementAndGet();
            } catch (Exception e) {
              errors.add(e);
              total.incrementAndGet();
            }
          }
        }, "search-client-" + i);
        t.start();
        threads.add(t);
      }
    }

    long answeredFrom(String id) {
      return snapshots.getOrDefault(id, 0L);
    }

    long total() {
      return total.get();
    }

    Map<Integer, Long> statuses() {
      return Map.copyOf(statuses);
    }

    void await(String what, BooleanSupplier condition) throws InterruptedException {
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (!condition.getAsBoolean()) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("timed out waiting for " + what + " (answers by snapshot " + snapshots
              + ", statuses " + statuses + ", errors " + errors + ")");
        }
        Thread.sleep(50);
      }
    }

    /** Stops the clients (also when the test failed); {@link #stop} then checks what they saw. */
    void halt() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) {
        t.join(60_000);
      }
    }

    void stop() throws InterruptedException {
      halt();
      assertTrue(errors.isEmpty(), "searches failed: " + errors);
      assertNotEquals(0, total.get());
    }
  }
}
