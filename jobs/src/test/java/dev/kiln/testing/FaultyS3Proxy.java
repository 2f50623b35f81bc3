package dev.kiln.testing;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * A fault-injecting HTTP/1.1 proxy in front of an S3-compatible server ({@link S3Server}), on
 * 127.0.0.1 with plain sockets, for tests of what Kiln does when object storage misbehaves. Each
 * request is read whole, a {@link Plan} decides its {@link Fault}, and the request is forwarded (or
 * not) and answered (or not) accordingly:
 *
 * <ul>
 *   <li>{@link Fault#RESET_BEFORE}: the connection is reset before the request reaches the store;
 *   <li>{@link Fault#LOSE_RESPONSE}: the store carries the request out, and the connection is reset
 *       before a byte of the answer: a PUT that succeeded looks failed;
 *   <li>{@link Fault#RESET_MID_BODY}: status, headers and half the body, then a reset;
 *   <li>{@link Fault#TRUNCATE}: status and headers with the full {@code Content-Length}, half the body,
 *       then a clean close: a client that counts no bytes reads a short object as a whole one;
 *   <li>{@link Fault#DELAY}: the store's answer, after a bounded delay;
 *   <li>{@link Fault#ERROR_500}, {@link Fault#ERROR_503}, {@link Fault#SLOW_DOWN}: S3's own error
 *       answers ({@code InternalError}, {@code ServiceUnavailable}, {@code SlowDown}) with their XML
 *       body, the request not forwarded.
 * </ul>
 *
 * <p>Every answer carries {@code Connection: close} and ends its connection, so a client never
 * retries by itself on a pooled connection, and every attempt a client makes is one request here. A
 * request that asks {@code Expect: 100-continue} is told to continue at once; the store receives it
 * without that header. The proxy counts requests by {@link Op} and the faults it injected by kind
 * ({@link #injected}); a fault that cannot apply (a truncated answer without a body) is neither
 * injected nor counted.
 */
public final class FaultyS3Proxy implements AutoCloseable {
  /** The kind of S3 request, from its method and target. */
  public enum Op {
    GET, HEAD, PUT, DELETE, LIST, POST;

    static Op of(String method, String path, String query) {
      String m = method.toUpperCase(Locale.ROOT);
      boolean bucketOnly = path.indexOf('/', 1) < 0 || path.indexOf('/', 1) == path.length() - 1;
      return switch (m) {
        case "GET" -> bucketOnly || query.contains("list-type") ? LIST : GET;
        case "HEAD" -> HEAD;
        case "PUT" -> PUT;
        case "DELETE" -> DELETE;
        default -> POST;
      };
    }
  }

  /** What happens to one request. */
  public enum Fault {
    NONE(false), RESET_BEFORE(false), LOSE_RESPONSE(false), RESET_MID_BODY(true), TRUNCATE(true), DELAY(false),
    ERROR_500(false), ERROR_503(false), SLOW_DOWN(false);

    private final boolean needsBody;

    Fault(boolean needsBody) {
      this.needsBody = needsBody;
    }

    /** Whether the fault cuts a response body, and so applies only to answers that have one. */
    public boolean needsBody() {
      return needsBody;
    }
  }

  /**
   * One request as the plan sees it.
   *
   * @param target the request target (path and query) as sent
   * @param key the object key (path-style: after the bucket), empty for a bucket request
   * @param occurrence how many requests with this method and target came before this one: a
   *     client's retry of a request is the next occurrence
   */
  public record Request(Op op, String method, String target, String key, int occurrence) {}

  /** Decides the fault of each request; called from many threads. */
  @FunctionalInterface
  public interface Plan {
    Fault decide(Request request);

    /** Every request goes through untouched. */
    static Plan none() {
      return r -> Fault.NONE;
    }
  }

  /**
   * A seeded random plan: each request's fault is drawn from {@code rates} (per op, per fault kind:
   * the probability of each) with a random number derived from the seed, the method, the target and
   * the occurrence, not from the order requests arrive in. So concurrent clients do not reshuffle the
   * plan, and the same requests meet the same faults under the same seed. Snapshot ids in targets are
   * left out of the derivation, so a rerun whose builds are named after another clock draws alike.
   */
  public static Plan random(long seed, Map<Op, Map<Fault, Double>> rates) {
    Map<Op, Map<Fault, Double>> copy = new EnumMap<>(Op.class);
    rates.forEach((op, byFault) -> copy.put(op, new EnumMap<>(byFault)));
    for (Map<Fault, Double> byFault : copy.values()) {
      double sum = byFault.values().stream().mapToDouble(Double::doubleValue).sum();
      if (sum > 1.0 + 1e-9) {
        throw new IllegalArgumentException("fault rates of one op add up to more than 1: " + byFault);
      }
    }
    return r -> {
      Map<Fault, Double> byFault = copy.get(r.op());
      if (byFault == null) {
        return Fault.NONE;
      }
      double u = unit(seed, r.method() + " " + SNAPSHOT_ID.matcher(r.target()).replaceAll("ID") + " #"
          + r.occurrence());
      double at = 0;
      for (Map.Entry<Fault, Double> e : byFault.entrySet()) {
        at += e.getValue();
        if (u < at) {
          return e.getKey();
        }
      }
      return Fault.NONE;
    };
  }

  /**
   * Rates that give each op in {@code ops} a total fault rate {@code total}, split evenly over the
   * {@code kinds} that apply to it (the body-cutting ones only to GET and LIST).
   */
  public static Map<Op, Map<Fault, Double>> mixed(double total, Set<Op> ops, Set<Fault> kinds) {
    Map<Op, Map<Fault, Double>> rates = new EnumMap<>(Op.class);
    for (Op op : ops) {
      List<Fault> apply = kinds.stream().filter(f -> f != Fault.NONE)
          .filter(f -> !f.needsBody() || op == Op.GET || op == Op.LIST).sorted().toList();
      Map<Fault, Double> byFault = new EnumMap<>(Fault.class);
      apply.forEach(f -> byFault.put(f, total / apply.size()));
      rates.put(op, byFault);
    }
    return rates;
  }

  private static final Pattern SNAPSHOT_ID = Pattern.compile("[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}");

  /** A number in [0, 1) from the seed and a text: FNV-1a, then SplitMix64's finaliser. */
  static double unit(long seed, String text) {
    long h = seed ^ 0xCBF29CE484222325L;
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ b) * 0x100000001B3L;
    }
    h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
    h = (h ^ (h >>> 27)) * 0x94D049BB133111EBL;
    h ^= h >>> 31;
    return (h >>> 11) * 0x1.0p-53;
  }

  private static final int MAX_HEADER_BYTES = 64 * 1024;
  private static final int SOCKET_TIMEOUT_MS = 60_000;

  private final URI upstream;
  private final ServerSocket server;
  private final ExecutorService connections;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Map<String, AtomicInteger> occurrences = new ConcurrentHashMap<>();
  private final Map<Op, AtomicLong> requests = new ConcurrentHashMap<>();
  private final Map<Op, AtomicLong> retries = new ConcurrentHashMap<>();
  private final Map<Op, Map<Fault, AtomicLong>> injected = new ConcurrentHashMap<>();
  private final List<String> log = Collections.synchronizedList(new ArrayList<>());
  private final long maxDelayMillis;
  private volatile Plan plan;
  private volatile boolean closed;

  /**
   * Starts a proxy to {@code upstream} ({@code http://127.0.0.1:PORT}, an S3 endpoint) on an ephemeral
   * port of 127.0.0.1.
   *
   * @param maxDelayMillis the longest {@link Fault#DELAY}; each delay is drawn up to it
   */
  public FaultyS3Proxy(URI upstream, Plan plan, long maxDelayMillis) throws IOException {
    this.upstream = upstream;
    this.plan = plan;
    this.maxDelayMillis = maxDelayMillis;
    this.server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
    AtomicInteger n = new AtomicInteger();
    this.connections = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "faulty-s3-proxy-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    Thread acceptor = new Thread(this::accept, "faulty-s3-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** A proxy in front of {@code s3}'s endpoint. */
  public static FaultyS3Proxy in(S3Server s3, Plan plan, long maxDelayMillis) throws IOException {
    return new FaultyS3Proxy(URI.create(s3.settings().get("s3.endpoint")), plan, maxDelayMillis);
  }

  public int port() {
    return server.getLocalPort();
  }

  /** {@code s3}'s {@code filesystem:} settings with the endpoint pointed at this proxy. */
  public Map<String, String> settings(S3Server s3) {
    Map<String, String> s = new HashMap<>(s3.settings());
    s.put("s3.endpoint", "http://127.0.0.1:" + port());
    return s;
  }

  /** Replaces the plan for the requests that arrive from now on. */
  public void plan(Plan plan) {
    this.plan = plan;
  }

  /** Requests seen, by op. */
  public Map<Op, Long> requests() {
    Map<Op, Long> r = new EnumMap<>(Op.class);
    requests.forEach((op, n) -> r.put(op, n.get()));
    return r;
  }

  /**
   * Requests that an AWS SDK marked as a retry of an earlier attempt, by op: v2's
   * {@code amz-sdk-request: attempt=N} with N above 1, v1's {@code amz-sdk-retry: N/…} with N above 0
   * (Flink's S3 file system). Retries a client makes on its own terms (a stream that resumes with a range GET) are not
   * marked, and not counted.
   */
  public Map<Op, Long> retries() {
    Map<Op, Long> r = new EnumMap<>(Op.class);
    retries.forEach((op, n) -> r.put(op, n.get()));
    return r;
  }

  /** Retries marked by an SDK, over every op. */
  public long retryCount() {
    return retries.values().stream().mapToLong(AtomicLong::get).sum();
  }

  private static boolean isRetry(Message request) {
    String v2 = request.header("amz-sdk-request");
    if (v2 != null) {
      for (String part : v2.split(";")) {
        String p = part.trim();
        if (p.startsWith("attempt=") && !p.equals("attempt=1")) {
          return true;
        }
      }
    }
    // v1 sends RETRIES/LAST-BACKOFF/CAPACITY on every request: 0 retries on a first attempt.
    String v1 = request.header("amz-sdk-retry");
    return v1 != null && !v1.startsWith("0/");
  }

  /** Faults injected, by op and kind. */
  public Map<Op, Map<Fault, Long>> injected() {
    Map<Op, Map<Fault, Long>> r = new EnumMap<>(Op.class);
    injected.forEach((op, byFault) -> {
      Map<Fault, Long> m = new EnumMap<>(Fault.class);
      byFault.forEach((f, n) -> m.put(f, n.get()));
      r.put(op, m);
    });
    return r;
  }

  /** Faults injected of one kind, over every op. */
  public long injected(Fault kind) {
    return injected.values().stream().mapToLong(m -> m.getOrDefault(kind, new AtomicLong()).get()).sum();
  }

  /** Every fault injected, of every kind but {@link Fault#DELAY}. */
  public long failures() {
    return injected.values().stream().flatMap(m -> m.entrySet().stream()).filter(e -> e.getKey() != Fault.DELAY)
        .mapToLong(e -> e.getValue().get()).sum();
  }

  /** One line per injected fault ({@code FAULT METHOD TARGET #occurrence}), in the order injected. */
  public List<String> log() {
    synchronized (log) {
      return List.copyOf(log);
    }
  }

  /** Forgets counters, occurrences and the log (not the plan). */
  public void reset() {
    resetCounters();
    occurrences.clear();
  }

  /**
   * Forgets the counters and the log, but not how often each request was seen: a request the plan
   * decided before is drawn for again as its next occurrence.
   */
  public void resetCounters() {
    requests.clear();
    retries.clear();
    injected.clear();
    log.clear();
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        open.add(client);
        connections.execute(() -> {
          try (client) {
            serve(client);
          } catch (IOException | RuntimeException e) {
            // a client that went away, or an upstream that did: the client sees a broken connection
          } finally {
            open.remove(client);
          }
        });
      } catch (IOException e) {
        if (!closed) {
          System.err.println("FaultyS3Proxy: accept failed: " + e);
        }
      }
    }
  }

  /** One request on one connection: read, decide, forward, answer; the connection then closes. */
  private void serve(Socket client) throws IOException {
    client.setSoTimeout(SOCKET_TIMEOUT_MS);
    InputStream in = client.getInputStream();
    OutputStream out = client.getOutputStream();
    Message request = Message.read(in, true);
    if (request == null) {
      return;
    }
    if ("100-continue".equalsIgnoreCase(request.header("Expect"))) {
      out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
    }
    request.readBody(in, false);
    String[] parts = request.startLine.split(" ", 3);
    String method = parts[0];
    String target = parts.length > 1 ? parts[1] : "/";
    int q = target.indexOf('?');
    String path = q < 0 ? target : target.substring(0, q);
    String query = q < 0 ? "" : target.substring(q + 1);
    Op op = Op.of(method, path, query);
    int slash = path.indexOf('/', 1);
    String key = slash < 0 ? "" : path.substring(slash + 1);
    int occurrence = occurrences.computeIfAbsent(method + " " + target, k -> new AtomicInteger()).getAndIncrement();
    requests.computeIfAbsent(op, k -> new AtomicLong()).incrementAndGet();
    if (isRetry(request)) {
      retries.computeIfAbsent(op, k -> new AtomicLong()).incrementAndGet();
    }
    Request r = new Request(op, method, target, key, occurrence);
    Fault fault = plan.decide(r);

    switch (fault) {
      case RESET_BEFORE -> {
        count(r, fault);
        reset(client);
        return;
      }
      case ERROR_500 -> {
        count(r, fault);
        answer(out, 500, "Internal Server Error", "InternalError", "We encountered an internal error. Please try again.");
        return;
      }
      case ERROR_503 -> {
        count(r, fault);
        answer(out, 503, "Service Unavailable", "ServiceUnavailable", "Service is unable to handle request.");
        return;
      }
      case SLOW_DOWN -> {
        count(r, fault);
        answer(out, 503, "Slow Down", "SlowDown", "Please reduce your request rate.");
        return;
      }
      default -> {
        // forwarded below
      }
    }
    long forwarding = System.nanoTime();
    Message response = forward(request);
    long tookMs = (System.nanoTime() - forwarding) / 1_000_000;
    if (tookMs > 5_000) {
      System.err.println("FaultyS3Proxy: the store took " + tookMs + " ms to answer " + method + " " + target + ": "
          + response.startLine);
    }
    switch (fault) {
      case LOSE_RESPONSE -> {
        count(r, fault);
        reset(client);
      }
      case DELAY -> {
        count(r, fault);
        sleep(delayOf(r));
        response.write(out, response.body.length);
      }
      case RESET_MID_BODY, TRUNCATE -> {
        if (response.body.length == 0 || "HEAD".equalsIgnoreCase(method)) {
          response.write(out, response.body.length); // nothing to cut: not injected
          return;
        }
        count(r, fault);
        response.write(out, response.body.length / 2);
        if (fault == Fault.RESET_MID_BODY) {
          reset(client);
        } else {
          client.shutdownOutput();
        }
      }
      default -> response.write(out, response.body.length);
    }
  }

  private long delayOf(Request r) {
    return (long) (unit(r.occurrence() * 31L + maxDelayMillis, r.target()) * (maxDelayMillis + 1));
  }

  private void count(Request r, Fault fault) {
    injected.computeIfAbsent(r.op(), k -> new ConcurrentHashMap<>()).computeIfAbsent(fault, k -> new AtomicLong())
        .incrementAndGet();
    log.add(fault + " " + r.method() + " " + r.target() + " #" + r.occurrence());
  }

  private static void reset(Socket client) throws IOException {
    client.setSoLinger(true, 0);
    client.close();
  }

  private static void sleep(long millis) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private static void answer(OutputStream out, int status, String reason, String code, String message)
      throws IOException {
    byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>" + message
        + "</Message><RequestId>faulty-s3-proxy</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
    String head = "HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: application/xml\r\nContent-Length: "
        + body.length + "\r\nConnection: close\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
  }

  /** Sends the request to the store on a connection of its own and reads the whole answer. */
  private Message forward(Message request) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(upstream.getHost(), upstream.getPort()), SOCKET_TIMEOUT_MS);
      s.setSoTimeout(SOCKET_TIMEOUT_MS);
      OutputStream out = s.getOutputStream();
      StringBuilder head = new StringBuilder(request.startLine).append("\r\n");
      for (String[] h : request.headers) {
        String name = h[0].toLowerCase(Locale.ROOT);
        if (!name.equals("expect") && !name.equals("connection") && !name.equals("transfer-encoding")
            && !name.equals("content-length")) {
          head.append(h[0]).append(": ").append(h[1]).append("\r\n");
        }
      }
      if (request.body.length > 0 || request.header("Content-Length") != null
          || request.header("Transfer-Encoding") != null) {
        head.append("Content-Length: ").append(request.body.length).append("\r\n");
      }
      head.append("Connection: close\r\n\r\n");
      out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.write(request.body);
      out.flush();
      InputStream in = s.getInputStream();
      Message response = Message.read(in, false);
      if (response == null) {
        throw new EOFException("the store closed the connection without an answer");
      }
      boolean head2 = request.startLine.regionMatches(true, 0, "HEAD ", 0, 5);
      response.readBody(in, head2);
      return response;
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    for (Socket s : open) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
    connections.shutdownNow();
    try {
      connections.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "FaultyS3Proxy[127.0.0.1:" + port() + " -> " + upstream + "]";
  }

  /** An HTTP/1.1 request or response: start line, headers, and (once read) the whole body. */
  static final class Message {
    final String startLine;
    final List<String[]> headers;
    byte[] body = new byte[0];

    private Message(String startLine, List<String[]> headers) {
      this.startLine = startLine;
      this.headers = headers;
    }

    String header(String name) {
      for (String[] h : headers) {
        if (h[0].equalsIgnoreCase(name)) {
          return h[1];
        }
      }
      return null;
    }

    /** The start line and headers; null when the stream ends before a byte. */
    static Message read(InputStream in, boolean request) throws IOException {
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      int matched = 0;
      while (matched < 4) {
        int b = in.read();
        if (b < 0) {
          if (buf.size() == 0) {
            return null;
          }
          throw new EOFException("connection closed inside the headers");
        }
        buf.write(b);
        if (buf.size() > MAX_HEADER_BYTES) {
          throw new IOException("headers larger than " + MAX_HEADER_BYTES + " bytes");
        }
        matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
            ? matched + 1 : (b == '\r' ? 1 : 0);
      }
      String[] lines = buf.toString(StandardCharsets.ISO_8859_1).split("\r\n");
      List<String[]> headers = new ArrayList<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        if (colon > 0) {
          headers.add(new String[] {lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim()});
        }
      }
      Message m = new Message(lines[0], headers);
      if (!request && m.startLine.contains(" 100 ")) {
        return read(in, false); // an interim answer: the real one follows
      }
      return m;
    }

    /**
     * Reads the body: chunked, by {@code Content-Length}, or (an answer without either) up to the end
     * of the stream; {@code none} for the answer to a HEAD.
     */
    void readBody(InputStream in, boolean none) throws IOException {
      if (none) {
        return;
      }
      String te = header("Transfer-Encoding");
      String cl = header("Content-Length");
      if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
        body = dechunk(in);
        headers.removeIf(h -> h[0].equalsIgnoreCase("Transfer-Encoding"));
        headers.add(new String[] {"Content-Length", Integer.toString(body.length)});
      } else if (cl != null) {
        body = in.readNBytes(Integer.parseInt(cl.trim()));
        if (body.length != Integer.parseInt(cl.trim())) {
          throw new EOFException("body shorter than its Content-Length");
        }
      } else if (!startLine.startsWith("HTTP/")) {
        body = new byte[0]; // a request without a body
      } else {
        body = in.readAllBytes();
        headers.add(new String[] {"Content-Length", Integer.toString(body.length)});
      }
    }

    private static byte[] dechunk(InputStream in) throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      while (true) {
        String sizeLine = line(in);
        int semi = sizeLine.indexOf(';');
        int size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
        if (size == 0) {
          while (!line(in).isEmpty()) {
            // trailers: dropped
          }
          return out.toByteArray();
        }
        byte[] chunk = in.readNBytes(size);
        if (chunk.length != size) {
          throw new EOFException("chunk shorter than declared");
        }
        out.write(chunk);
        line(in);
      }
    }

    private static String line(InputStream in) throws IOException {
      StringBuilder sb = new StringBuilder();
      int b;
      while ((b = in.read()) >= 0 && b != '\n') {
        if (b != '\r') {
          sb.append((char) b);
        }
      }
      if (b < 0) {
        throw new EOFException("connection closed inside a chunked body");
      }
      return sb.toString();
    }

    /** Writes the answer with {@code Connection: close}, its full {@code Content-Length} and the first {@code n} bytes of the body. */
    void write(OutputStream out, int n) throws IOException {
      StringBuilder head = new StringBuilder(startLine).append("\r\n");
      for (String[] h : headers) {
        if (!h[0].equalsIgnoreCase("Connection") && !h[0].equalsIgnoreCase("Keep-Alive")) {
          head.append(h[0]).append(": ").append(h[1]).append("\r\n");
        }
      }
      head.append("Connection: close\r\n\r\n");
      out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.write(body, 0, n);
      out.flush();
    }
  }
}
