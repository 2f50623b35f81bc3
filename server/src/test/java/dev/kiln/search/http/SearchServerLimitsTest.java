package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SnapshotFixture;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server under hostile or heavy load, over real sockets on 127.0.0.1: clients that stall or
 * trickle, more connections than allowed, more searches than threads and queue, clients that hang
 * up before their search starts. Bounds are generous (the machine is shared); each would be missed
 * by a server without the protection, which hangs or never refuses.
 */
class SearchServerLimitsTest {
  @TempDir static Path root;
  private static TextEmbedder embedder;
  private static ReloadingSearcher searchers;
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(30)).build();
  private static final ObjectMapper JSON = new ObjectMapper();
  /** A query long enough that hybrid search embeds a full model window (256 tokens) every time. */
  private static final String LONG_QUERY = String.join(" ", Collections.nCopies(40,
      "blue whales feed on krill while magma erupts as lava and runners train for the marathon"));

  @BeforeAll
  static void start() throws Exception {
    embedder = SnapshotFixture.openEmbedder();
    new SnapshotFixture(embedder).write(root);
    searchers = new ReloadingSearcher(root, SearchOptions.defaults(), 0);
  }

  @AfterAll
  static void stop() {
    searchers.close();
    embedder.close();
  }

  private static HttpResponse<String> get(SearchServer server, String pathAndQuery, Duration timeout)
      throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
        .timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest slowSearch(SearchServer server) {
    String body = JSON.createObjectNode().put("q", LONG_QUERY).put("mode", "hybrid").put("k", 50).toString();
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/search"))
        .timeout(Duration.ofSeconds(120)).POST(HttpRequest.BodyPublishers.ofString(body)).build();
  }

  @Test
  void slowLorisClientsDoNotDelayHealthAndAreClosed() throws Exception {
    try (SearchServer server = SearchServer.start(searchers,
        ServerConfig.of("127.0.0.1", 0, 4).withIdleTimeoutMs(3000))) {
      List<Socket> loris = new ArrayList<>();
      try {
        for (int i = 0; i < 64; i++) { // 16 x the search threads, each sends one byte and stalls
          Socket s = RawHttp.open(server.port());
          RawHttp.send(s, "G");
          loris.add(s);
        }
        long t0 = System.nanoTime();
        HttpResponse<String> health = get(server, "/health", Duration.ofSeconds(20));
        assertEquals(200, health.statusCode(), health.body());
        assertEquals(200, get(server, "/search?q=lava&mode=bm25", Duration.ofSeconds(20)).statusCode());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(20).toNanos());
        for (Socket s : loris) {
          assertTrue(RawHttp.closedByServer(s, Duration.ofSeconds(60)),
              "a stalled connection must be closed after the 3 s idle timeout");
        }
      } finally {
        for (Socket s : loris) {
          s.close();
        }
      }
    }
  }

  @Test
  void headersTrickledByteByByteAreCutOff() throws Exception {
    try (SearchServer server = SearchServer.start(searchers,
        ServerConfig.of("127.0.0.1", 0, 2).withIdleTimeoutMs(2000));
        Socket s = RawHttp.open(server.port())) {
      // One byte every 250 ms never lets the 2 s idle timeout fire; only a header deadline ends it.
      String request = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + "a".repeat(400);
      long t0 = System.nanoTime();
      boolean closed = false;
      for (int i = 0; i < request.length() && !closed; i++) {
        try {
          RawHttp.send(s, request.substring(i, i + 1));
        } catch (IOException reset) {
          closed = true;
          break;
        }
        closed = RawHttp.closedByServer(s, Duration.ofMillis(250)); // also paces the trickle
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      assertTrue(closed, "a connection trickling its headers for " + seconds + " s was not closed");
      assertTrue(seconds >= 1.9, "closed before the 2 s timeout: " + seconds);
      assertTrue(server.metrics().timedOutCount("header") >= 1);
      assertTrue(metric(server, "kiln_requests_timed_out_total{phase=\"header\"}") >= 1);
    }
  }

  /** After an answered request the connection is between requests; the next one's headers have a deadline too. */
  @Test
  void headersOfTheNextRequestOnAKeptAliveConnectionAreCutOffToo() throws Exception {
    try (SearchServer server = SearchServer.start(searchers,
        ServerConfig.of("127.0.0.1", 0, 2).withIdleTimeoutMs(2000));
        Socket s = RawHttp.open(server.port())) {
      RawHttp.send(s, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      assertEquals(200, RawHttp.status(RawHttp.readAll(s, Duration.ofSeconds(30))));
      String request = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + "a".repeat(400);
      long t0 = System.nanoTime();
      boolean closed = false;
      for (int i = 0; i < request.length() && !closed; i++) {
        try {
          RawHttp.send(s, request.substring(i, i + 1));
        } catch (IOException reset) {
          closed = true;
          break;
        }
        closed = RawHttp.closedByServer(s, Duration.ofMillis(250)); // also paces the trickle
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      assertTrue(closed, "a kept-alive connection trickling its next headers for " + seconds + " s was not closed");
      assertTrue(seconds >= 1.9, "closed before the 2 s timeout: " + seconds);
      assertEquals(1, server.metrics().timedOutCount("header"));
    }
  }

  @Test
  void aBodyThatDoesNotArriveInTimeIsAnswered408() throws Exception {
    try (SearchServer server = SearchServer.start(searchers,
        ServerConfig.of("127.0.0.1", 0, 2).withIdleTimeoutMs(2000));
        Socket s = RawHttp.open(server.port())) {
      String body = "{\"q\": \"lava\", \"mode\": \"bm25\", \"k\": 3, \"pad\": \"" + "x".repeat(200) + "\"}";
      RawHttp.send(s, "POST /search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + body.length() + "\r\n\r\n");
      String answer = "";
      for (int i = 0; i < body.length() && answer.isEmpty(); i++) { // a byte every 250 ms: 50 s in all
        RawHttp.send(s, body.substring(i, i + 1));
        answer = RawHttp.readAll(s, Duration.ofMillis(250));
      }
      assertEquals(408, RawHttp.status(answer), answer);
      assertTrue(answer.contains("did not arrive within 2000 ms"), answer);
      assertEquals(1, server.metrics().timedOutCount("body"));
      assertEquals(200, get(server, "/search?q=lava&mode=bm25", Duration.ofSeconds(20)).statusCode());
    }
  }

  @Test
  void anOversizedBodyIsA400WhetherItsLengthIsDeclaredOrChunked() throws Exception {
    try (SearchServer server = SearchServer.start(searchers, ServerConfig.of("127.0.0.1", 0, 2))) {
      String big = "{\"q\": \"lava\", \"pad\": \"" + "x".repeat(SearchHandler.MAX_BODY_BYTES) + "\"}";
      URI uri = URI.create("http://127.0.0.1:" + server.port() + "/search");
      HttpResponse<String> declared = HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
          .POST(HttpRequest.BodyPublishers.ofString(big)).build(), HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> chunked = HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
          .POST(HttpRequest.BodyPublishers.ofInputStream(
              () -> new ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8)))).build(),
          HttpResponse.BodyHandlers.ofString());
      for (HttpResponse<String> r : List.of(declared, chunked)) {
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("body is larger than 65536 bytes"), r.body());
      }
      assertEquals(200, get(server, "/health", Duration.ofSeconds(20)).statusCode());
    }
  }

  @Test
  void connectionsPastTheLimitWaitAndIdleOnesAreShedWhileHealthAnswers() throws Exception {
    int limit = 16;
    try (SearchServer server = SearchServer.start(searchers,
        ServerConfig.of("127.0.0.1", 0, 2).withMaxConnections(limit))) {
      List<Socket> idle = new ArrayList<>();
      try {
        for (int i = 0; i < 3 * limit; i++) {
          idle.add(RawHttp.open(server.port())); // the kernel accepts them into the backlog
        }
        HttpResponse<String> health = get(server, "/health", Duration.ofSeconds(60));
        assertEquals(200, health.statusCode());
        long open = metric(server, "kiln_http_connections");
        assertTrue(open >= 1 && open <= limit, "open connections: " + open);
        // At the limit idle connections get a 1 s idle timeout instead of 10 s, so all are shed.
        long t0 = System.nanoTime();
        for (Socket s : idle) {
          assertTrue(RawHttp.closedByServer(s, Duration.ofSeconds(60)), "an idle connection was kept");
        }
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(60).toNanos());
      } finally {
        for (Socket s : idle) {
          s.close();
        }
      }
    }
  }

  @Test
  void everyConnectionOpenWhenTheLimitIsReachedGetsTheShortIdleTimeout() throws Exception {
    // Exactly the limit and nothing queued behind: no later accept re-applies the short timeout, so
    // each connection must get it when the limit is reached, including those the acceptor took before
    // the selector had opened them (always the one that reached the limit). One that kept the 60 s
    // idle timeout would not be closed within the 20 s allowed (1 s is due).
    int limit = 16;
    try (SearchServer server = SearchServer.start(searchers,
        ServerConfig.of("127.0.0.1", 0, 2).withIdleTimeoutMs(60_000).withMaxConnections(limit))) {
      List<Socket> idle = new ArrayList<>();
      try {
        for (int i = 0; i < limit; i++) {
          idle.add(RawHttp.open(server.port()));
        }
        for (int i = 0; i < limit; i++) {
          assertTrue(RawHttp.closedByServer(idle.get(i), Duration.ofSeconds(20)),
              "idle connection " + (i + 1) + " of " + limit + " kept its 60 s idle timeout at the limit");
        }
        assertEquals(200, get(server, "/health", Duration.ofSeconds(20)).statusCode());
      } finally {
        for (Socket s : idle) {
          s.close();
        }
      }
    }
  }

  @Test
  void aFullQueueIsAnswered503WithRetryAfterAndHealthStillAnswers() throws Exception {
    try (SearchServer server = SearchServer.start(searchers,
        ServerConfig.of("127.0.0.1", 0, 1).withQueue(1))) {
      int rejected = 0;
      int ok = 0;
      long slowestHealthMs = 0;
      for (int round = 0; round < 10 && rejected == 0; round++) {
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
        List<Thread> senders = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
          CompletableFuture<HttpResponse<String>> f = new CompletableFuture<>();
          burst.add(f);
          Thread t = new Thread(() -> {
            try {
              go.await();
              f.complete(HTTP.send(slowSearch(server), HttpResponse.BodyHandlers.ofString()));
            } catch (Exception e) {
              f.completeExceptionally(e);
            }
          });
          t.start();
          senders.add(t);
        }
        go.countDown();
        long t0 = System.nanoTime();
        assertEquals(200, get(server, "/health", Duration.ofSeconds(30)).statusCode());
        slowestHealthMs = Math.max(slowestHealthMs, (System.nanoTime() - t0) / 1_000_000);
        for (CompletableFuture<HttpResponse<String>> f : burst) {
          HttpResponse<String> r = f.get();
          if (r.statusCode() == 503) {
            rejected++;
            assertEquals("1", r.headers().firstValue("Retry-After").orElse(null));
            assertTrue(JSON.readTree(r.body()).get("error").asText().contains("server busy"), r.body());
          } else {
            assertEquals(200, r.statusCode(), r.body());
            ok++;
          }
        }
        for (Thread t : senders) {
          t.join();
        }
      }
      assertTrue(rejected > 0, "one search thread and a queue of one never refused a burst of 24");
      assertTrue(ok >= 2, "the running and the queued search must still be answered: " + ok);
      assertEquals(rejected, server.metrics().rejectedCount());
      assertEquals(rejected, server.metrics().requests("search", 503));
      assertEquals(rejected, metric(server, "kiln_requests_rejected_total"));
      assertTrue(slowestHealthMs < 30_000, "health took " + slowestHealthMs + " ms under a burst");
    }
  }

  @Test
  void searchesWhoseClientHungUpBeforeTheyStartAreDropped() throws Exception {
    try (SearchServer server = SearchServer.start(searchers,
        ServerConfig.of("127.0.0.1", 0, 1).withQueue(64))) {
      int sent = 0;
      for (int round = 0; round < 5 && server.metrics().abandonedCount() == 0; round++) {
        // Keep the one search thread busy with real searches ...
        List<CompletableFuture<HttpResponse<String>>> busy = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          busy.add(HTTP.sendAsync(slowSearch(server), HttpResponse.BodyHandlers.ofString()));
        }
        sent += 3;
        // ... while clients queue searches behind them and hang up at once.
        for (int i = 0; i < 8; i++) {
          try (Socket s = RawHttp.open(server.port())) {
            RawHttp.send(s, "GET /search?mode=hybrid&q=" + URLEncoder.encode(LONG_QUERY, StandardCharsets.UTF_8)
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
          }
          sent++;
        }
        for (CompletableFuture<HttpResponse<String>> f : busy) {
          assertEquals(200, f.get().statusCode());
        }
        awaitSettled(server, sent);
      }
      long abandoned = server.metrics().abandonedCount();
      assertTrue(abandoned >= 1, "no search was dropped although its client had gone");
      assertEquals(sent, server.metrics().requests("search", 200) + abandoned,
          "every search is either answered or dropped, never both");
      assertEquals(abandoned, metric(server, "kiln_requests_abandoned_total"));
    }
  }

  /** Waits for the condition "every search sent was answered or dropped". */
  private static void awaitSettled(SearchServer server, int sent) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (server.metrics().requests("search", 200) + server.metrics().abandonedCount() < sent) {
      assertTrue(System.nanoTime() < deadline, "searches still unsettled after 120 s");
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  private static long metric(SearchServer server, String name) throws Exception {
    String text = get(server, "/metrics", Duration.ofSeconds(30)).body();
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\d+)$").matcher(text);
    assertTrue(m.find(), name + " missing from\n" + text);
    return Long.parseLong(m.group(1));
  }
}
