package dev.kiln.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HttpLoadTest {
  @Test
  void onlyLoopbackTargetsAreAccepted() {
    for (String ok : List.of("http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:8080")) {
      HttpLoad.checkLoopback(URI.create(ok));
    }
    for (String bad : List.of("http://10.0.0.1:8080", "http://192.168.1.2", "http://example.com",
        "https://127.0.0.1:8443", "http://127.0.0.2:8080", "http://user@127.0.0.1:8080", "http://0.0.0.0:8080")) {
      assertThrows(IllegalArgumentException.class, () -> HttpLoad.checkLoopback(URI.create(bad)), bad);
    }
  }

  @Test
  void percentilesAreNearestRank() {
    double[] v = new double[100];
    for (int i = 0; i < v.length; i++) {
      v[i] = i + 1;
    }
    assertEquals(50, HttpLoad.percentile(v, 50));
    assertEquals(99, HttpLoad.percentile(v, 99));
    assertEquals(100, HttpLoad.percentile(v, 100));
    assertEquals(7, HttpLoad.percentile(new double[] {7}, 99));
    assertEquals(0, HttpLoad.percentile(new double[0], 50));
  }

  /** A request-count run against a real local server sends exactly that many requests and times each. */
  @Test
  void aRequestCountRunSendsExactlyThatManyAndCountsStatuses() throws Exception {
    AtomicInteger served = new AtomicInteger();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/search", ex -> {
      int n = served.incrementAndGet();
      byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(n % 10 == 0 ? 503 : 200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    server.start();
    try {
      URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/search?q=x");
      HttpLoad.Level level = HttpLoad.run(HttpClient.newHttpClient(), List.of(uri), null, 4, 50, 60);
      assertEquals(50, level.requests());
      assertEquals(50, served.get());
      assertEquals(Map.of(200, 45L, 503, 5L), level.statuses());
      assertEquals(50, level.latenciesMs().length);
      for (double ms : level.latenciesMs()) {
        assertTrue(ms > 0);
      }
      assertTrue(level.qps() > 0);
    } finally {
      server.stop(0);
    }
  }
}
