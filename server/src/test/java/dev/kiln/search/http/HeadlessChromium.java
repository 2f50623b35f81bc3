package dev.kiln.search.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real headless Chromium driven over the DevTools protocol (a WebSocket of JSON commands), with the
 * JDK's own HTTP client: no WebDriver, no driver download, nothing outside this machine. Bound to
 * loopback, with a profile directory of its own; every wait is bounded.
 */
final class HeadlessChromium implements AutoCloseable {
  /** Where Debian's {@code chromium} package puts the browser; {@code -Dkiln.tests.chromium} overrides. */
  private static final List<String> CANDIDATES = List.of("/usr/bin/chromium", "/usr/bin/chromium-browser",
      "/usr/bin/google-chrome");
  private static final Duration START = Duration.ofSeconds(30);
  private static final Duration COMMAND = Duration.ofSeconds(30);

  private final ObjectMapper json = new ObjectMapper();
  private final Process process;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final List<JsonNode> events = new ArrayList<>();

  /** The browser binary, if one is installed. */
  static Optional<Path> find() {
    String given = System.getProperty("kiln.tests.chromium");
    if (given != null && !given.isBlank()) {
      return Optional.of(Path.of(given)).filter(Files::isExecutable);
    }
    return CANDIDATES.stream().map(Path::of).filter(Files::isExecutable).findFirst();
  }

  HeadlessChromium(Path binary, Path profile) throws IOException, InterruptedException {
    Files.createDirectories(profile);
    process = new ProcessBuilder(binary.toString(), "--headless=new", "--no-sandbox", "--disable-gpu",
        "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
        "--disable-background-networking", "--disable-sync", "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0", "--user-data-dir=" + profile, "--window-size=1280,1800", "about:blank")
        .redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile()).start();
    try {
      int port = devToolsPort(profile.resolve("DevToolsActivePort"));
      HttpClient http = HttpClient.newBuilder().connectTimeout(START).build();
      String list = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list"))
          .timeout(START).build(), HttpResponse.BodyHandlers.ofString()).body();
      String page = null;
      for (JsonNode target : json.readTree(list)) {
        if (target.path("type").asText().equals("page")) {
          page = target.path("webSocketDebuggerUrl").asText();
          break;
        }
      }
      if (page == null) {
        throw new IOException("Chromium opened no page to drive: " + list);
      }
      socket = http.newWebSocketBuilder().connectTimeout(START).buildAsync(URI.create(page), new Listener())
          .get(START.toSeconds(), TimeUnit.SECONDS);
      send("Page.enable", json.createObjectNode());
      send("Runtime.enable", json.createObjectNode());
    } catch (IOException | InterruptedException | RuntimeException e) {
      process.destroyForcibly();
      throw e;
    } catch (Exception e) {
      process.destroyForcibly();
      throw new IOException("cannot drive Chromium: " + e, e);
    }
  }

  /** Chromium writes its DevTools port to the profile once it listens. */
  private int devToolsPort(Path file) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("Chromium exited with " + process.exitValue() + " before it listened");
      }
      if (Files.exists(file)) {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (!lines.isEmpty() && !lines.get(0).isBlank()) {
          return Integer.parseInt(lines.get(0).strip());
        }
      }
      Thread.sleep(50);
    }
    throw new IOException("Chromium did not open its DevTools port within " + START);
  }

  /** One DevTools command; its {@code result}, or an exception carrying the protocol's error. */
  JsonNode send(String method, ObjectNode params) throws Exception {
    int id = ids.incrementAndGet();
    CompletableFuture<JsonNode> reply = new CompletableFuture<>();
    pending.put(id, reply);
    ObjectNode message = json.createObjectNode().put("id", id).put("method", method);
    message.set("params", params);
    socket.sendText(json.writeValueAsString(message), true).get(COMMAND.toSeconds(), TimeUnit.SECONDS);
    JsonNode answer = reply.get(COMMAND.toSeconds(), TimeUnit.SECONDS);
    if (answer.has("error")) {
      throw new IllegalStateException(method + " failed: " + answer.get("error"));
    }
    return answer.path("result");
  }

  /** Evaluates {@code expression} in the page (promises awaited) and returns its value as JSON. */
  JsonNode eval(String expression) throws Exception {
    JsonNode result = send("Runtime.evaluate", json.createObjectNode().put("expression", expression)
        .put("returnByValue", true).put("awaitPromise", true));
    if (result.has("exceptionDetails")) {
      throw new IllegalStateException("the page threw on '" + expression + "': " + result.get("exceptionDetails"));
    }
    return result.path("result").path("value");
  }

  /** Opens {@code url} and waits until the document and its deferred script have loaded. */
  void open(String url) throws Exception {
    send("Page.navigate", json.createObjectNode().put("url", url));
    waitFor("document.readyState === 'complete'", Duration.ofSeconds(20));
  }

  /** Polls {@code condition} (a JS expression) until it is true; fails with what the page shows if not. */
  void waitFor(String condition, Duration limit) throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      if (eval("Boolean(" + condition + ")").asBoolean()) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the page never satisfied '" + condition + "' within " + limit + "; its error box: '"
        + eval("document.getElementById('error') ? document.getElementById('error').textContent : ''").asText() + "'");
  }

  /** A PNG of the whole page as shown now, written to {@code file}. */
  void screenshot(Path file) throws Exception {
    JsonNode shot = send("Page.captureScreenshot", json.createObjectNode().put("format", "png")
        .put("captureBeyondViewport", true));
    Files.createDirectories(file.getParent());
    Files.write(file, Base64.getDecoder().decode(shot.path("data").asText()));
  }

  /** The protocol events received so far named {@code method} (e.g. {@code Page.javascriptDialogOpening}). */
  synchronized List<JsonNode> events(String method) {
    return events.stream().filter(e -> e.path("method").asText().equals(method)).toList();
  }

  private synchronized void event(JsonNode e) {
    events.add(e);
  }

  private final class Listener implements WebSocket.Listener {
    private final StringBuilder partial = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        try {
          JsonNode message = json.readTree(partial.toString());
          if (message.has("id")) {
            CompletableFuture<JsonNode> reply = pending.remove(message.get("id").asInt());
            if (reply != null) {
              reply.complete(message);
            }
          } else {
            event(message);
          }
        } catch (IOException e) {
          pending.values().forEach(f -> f.completeExceptionally(e));
        }
        partial.setLength(0);
      }
      ws.request(1);
      return null;
    }
  }

  @Override
  public void close() throws InterruptedException {
    try {
      // Not awaited: the browser may close the socket before it answers; the process is waited for below.
      CompletableFuture<WebSocket> unused = socket.sendText("{\"id\":0,\"method\":\"Browser.close\"}", true);
    } catch (RuntimeException ignored) {
      // the process is ended below either way
    }
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
  }
}
