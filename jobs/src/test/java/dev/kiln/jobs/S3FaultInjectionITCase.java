package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.kiln.cli.Kiln;
import dev.kiln.cli.ServedRemoteRoot;
import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.http.ReloadSettings;
import dev.kiln.search.http.ReloadingSearcher;
import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.SnapshotVerifier;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.S3Settings;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.FaultyS3Proxy;
import dev.kiln.testing.FaultyS3Proxy.Fault;
import dev.kiln.testing.FaultyS3Proxy.Op;
import dev.kiln.testing.S3Server;
import dev.kiln.testing.TestSeeds;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Builds, publishes, gc and serve over object storage that fails: a {@link FaultyS3Proxy} in front of
 * s3proxy resets connections before and after the store acted, cuts bodies short, delays, and answers
 * 500, 503 and {@code SlowDown} for a share of every kind of request (GET, HEAD, PUT, DELETE, LIST),
 * at rising rates, on every client: the build's writers and corpus reads (Flink's S3 file system), the
 * protocol ({@code S3SnapshotStorage}), gc, and the serving mirror. Each round runs a full build, an
 * incremental one over a changed corpus, {@code kiln snapshots gc --keep 1}, a reload of a
 * {@link ReloadingSearcher} that follows the root and the start of a second one on an empty cache;
 * a last round gives Kiln's storage two attempts per request ({@code s3.max-attempts 2}), so that
 * steps fail, anywhere in the flow. After every step:
 *
 * <ul>
 *   <li>the step succeeded, or failed with a Kiln error or one naming the object that failed, within
 *       its timeout (a step that hangs fails the test);
 *   <li>{@code CURRENT} names a snapshot whose manifest lists every file with its size and SHA-256 and
 *       nothing else in its directories, checked past the proxy; a build that succeeded published it and
 *       holds every document of its corpus; gc kept the published snapshot and the one before it; no
 *       lock object is left behind;
 *   <li>the searcher serves a snapshot that was published, from a local copy that verifies in full, and
 *       answers from it; a reload that fails keeps the one it served.
 * </ul>
 *
 * <p>The fault plan is seeded ({@link TestSeeds}: {@code -Dkiln.tests.seed=N}, or {@code random}).
 * {@code -Dkiln.faults.rounds=N} gives the randomised variant N rounds (default 1);
 * {@code -Dkiln.faults.sweep=true} adds each fault kind alone, and all mixed, at 5, 20 and 50 % (mixed
 * also with {@code s3.max-attempts} 2);
 * {@code -Dkiln.faults.report=FILE} writes the outcome table there (docs/results/fault-injection.md).
 */
@ExtendWith(TestSeeds.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3FaultInjectionITCase {
  static final String BUCKET = "kiln";
  static final Duration STEP_TIMEOUT = Duration.ofMinutes(3);
  static final Duration RELOAD_DEADLINE = Duration.ofSeconds(90);
  static final long MAX_DELAY_MS = 1000;
  static final Set<Fault> EVERY_KIND = EnumSet.complementOf(EnumSet.of(Fault.NONE));
  static final double[] SWEEP_RATES = {0.05, 0.20, 0.50};
  static final int DEFAULT_ATTEMPTS = S3Settings.DEFAULT_MAX_ATTEMPTS;

  @TempDir static Path work;
  static S3Server server;
  static FaultyS3Proxy proxy;
  static final List<Row> rows = Collections.synchronizedList(new ArrayList<>());
  static final ExecutorService steps = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fault-injection-step");
    t.setDaemon(true);
    return t;
  });

  /** One step's outcome, for the table. */
  record Row(String scenario, String faults, String step, boolean ok, String detail, Map<Fault, Long> injected,
      long requests, long retries, long millis) {}

  @BeforeAll
  static void start() throws Exception {
    server = new S3Server(work.resolve("blobs"), BUCKET);
    proxy = FaultyS3Proxy.in(server, FaultyS3Proxy.Plan.none(), MAX_DELAY_MS);
    System.out.println("S3FaultInjectionITCase: " + TestSeeds.reproduceLine() + "; proxy " + proxy);
  }

  @AfterAll
  static void stop() throws Exception {
    String table = table();
    System.out.println(table);
    String report = System.getProperty("kiln.faults.report");
    if (report != null && !report.isBlank()) {
      Files.writeString(Path.of(report), table);
    }
    steps.shutdownNow();
    if (proxy != null) {
      proxy.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  @Order(1)
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void everyStepSucceedsOrFailsCleanlyAtRisingRatesOfMixedFaults() throws Exception {
    try (Scenario s = new Scenario("mixed", TestSeeds.derive("S3FaultInjectionITCase.mixed"))) {
      for (double rate : new double[] {0.0, 0.05, 0.20}) {
        s.round(rate, EVERY_KIND, DEFAULT_ATTEMPTS);
      }
      // Kiln's own requests given up after a second failure: steps fail, at every point of the flow.
      s.round(0.20, EVERY_KIND, 2);
    }
    for (Row r : rows) {
      if (r.scenario().equals("mixed") && r.faults().equals("none")) {
        assertTrue(r.ok(), "without faults every step succeeds: " + r);
      }
    }
  }

  @Test
  @Order(2)
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void aRandomlySeededRound(Random random) throws Exception {
    int rounds = Integer.getInteger("kiln.faults.rounds", 1);
    try (Scenario s = new Scenario("random", random.nextLong())) {
      s.round(0.0, EVERY_KIND, DEFAULT_ATTEMPTS);
      for (int i = 0; i < rounds; i++) {
        double rate = 0.05 + random.nextInt(26) / 100.0;
        List<Fault> kinds = new ArrayList<>(EVERY_KIND);
        Collections.shuffle(kinds, random);
        s.round(rate, EnumSet.copyOf(kinds.subList(0, 1 + random.nextInt(kinds.size()))),
            random.nextBoolean() ? 2 : DEFAULT_ATTEMPTS);
      }
    }
  }

  @Test
  @Order(3)
  @Timeout(value = 90, unit = TimeUnit.MINUTES)
  @EnabledIfSystemProperty(named = "kiln.faults.sweep", matches = "true")
  void eachKindAloneAndAllMixedAtFiveTwentyAndFiftyPercent() throws Exception {
    for (Fault kind : EVERY_KIND) {
      try (Scenario s = new Scenario("kind-" + kind.name().toLowerCase(Locale.ROOT).replace('_', '-'),
          TestSeeds.derive("S3FaultInjectionITCase.sweep." + kind))) {
        s.round(0.0, EVERY_KIND, DEFAULT_ATTEMPTS);
        for (double rate : SWEEP_RATES) {
          s.round(rate, EnumSet.of(kind), DEFAULT_ATTEMPTS);
        }
      }
    }
    try (Scenario s = new Scenario("mixed-sweep", TestSeeds.derive("S3FaultInjectionITCase.sweep.mixed"))) {
      s.round(0.0, EVERY_KIND, DEFAULT_ATTEMPTS);
      for (double rate : SWEEP_RATES) {
        s.round(rate, EVERY_KIND, DEFAULT_ATTEMPTS);
      }
      for (double rate : SWEEP_RATES) {
        s.round(rate, EVERY_KIND, 2);
      }
    }
  }

  /** One snapshots root and its corpus in the bucket, built, collected and served round after round. */
  static final class Scenario implements AutoCloseable {
    final String name;
    final long seed;
    final String root;
    final String prefix;
    final Path cache;
    final SnapshotStore direct;
    final Set<String> published = new LinkedHashSet<>();
    int documents;
    int added;
    int coldStarts;
    /** The {@code filesystem:} settings of this round's clients: through the proxy. */
    Map<String, String> settings;
    ReloadingSearcher searcher;

    Scenario(String name, long seed) throws Exception {
      this.name = name;
      this.seed = seed;
      this.prefix = name + "/snapshots/";
      this.root = "s3://" + BUCKET + "/" + name + "/snapshots";
      this.cache = work.resolve("serve-" + name);
      // Past the proxy: what the store really holds.
      this.direct = RemoteStorages.store(root, server.settings());
      Path fixture = Path.of(S3FaultInjectionITCase.class.getResource("/fixture").toURI());
      server.put(name + "/corpus/corpus.jsonl", Files.readAllBytes(fixture.resolve("corpus.jsonl")));
      server.put(name + "/corpus/md/guide/lighthouse.md", Files.readAllBytes(fixture.resolve("md/guide/lighthouse.md")));
      documents = 8;
      System.out.printf(Locale.ROOT, "S3FaultInjectionITCase: scenario %s, fault seed 0x%x%n", name, seed);
    }

    /**
     * A full build, an incremental one, gc, a reload and a cold start, with {@code rate} of every
     * request failing with one of {@code kinds}, and Kiln's S3 storage making {@code maxAttempts}
     * attempts per request.
     */
    void round(double rate, Set<Fault> kinds, int maxAttempts) throws Exception {
      String faults = (rate == 0 ? "none" : String.format(Locale.ROOT, "%d %% %s", Math.round(rate * 100),
          kinds.equals(EVERY_KIND) ? "mixed" : kinds.toString().toLowerCase(Locale.ROOT)))
          + (maxAttempts == DEFAULT_ATTEMPTS ? "" : ", s3.max-attempts " + maxAttempts);
      settings = new HashMap<>(proxy.settings(server));
      settings.put(S3Settings.MAX_ATTEMPTS, Integer.toString(maxAttempts));
      proxy.reset();
      proxy.plan(rate == 0 ? FaultyS3Proxy.Plan.none() : FaultyS3Proxy.random(seed ^ Double.doubleToLongBits(rate),
          FaultyS3Proxy.mixed(rate, EnumSet.allOf(Op.class), kinds)));
      try {
        step(faults, "build (full)", () -> build(c -> c.incremental = "off"));
        addDocument();
        step(faults, "build (incremental)", () -> build(c -> {}));
        step(faults, "gc --keep 1", this::gc);
        step(faults, "serve: reload", this::reload);
        step(faults, "serve: cold start", this::coldStart);
      } finally {
        proxy.plan(FaultyS3Proxy.Plan.none());
      }
    }

    /** Runs one step within {@link #STEP_TIMEOUT}, records its outcome, then checks the invariants. */
    private void step(String faults, String step, Callable<String> action) throws Exception {
      proxy.resetCounters(); // occurrences go on: a step that repeats another's requests meets other faults
      long started = System.nanoTime();
      Future<String> f = steps.submit(action);
      boolean ok;
      String detail;
      try {
        detail = f.get(STEP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        ok = true;
      } catch (TimeoutException e) {
        f.cancel(true);
        throw new AssertionError(name + ", " + faults + ": " + step + " hung (no outcome within " + STEP_TIMEOUT + ")"
            + "; faults injected: " + proxy.log());
      } catch (ExecutionException e) {
        if (e.getCause() instanceof AssertionError a) {
          throw a;
        }
        ok = false;
        detail = clean(step, e.getCause());
      }
      long millis = (System.nanoTime() - started) / 1_000_000;
      Row row = new Row(name, faults, step, ok, detail, flatten(proxy.injected()),
          proxy.requests().values().stream().mapToLong(Long::longValue).sum(), proxy.retryCount(), millis);
      rows.add(row);
      System.out.println("S3FaultInjectionITCase: " + row);
      invariants(faults + ", after " + step);
    }

    /** A build over the proxy; on success it published a whole snapshot of the whole corpus. */
    private String build(Consumer<BuildConfig> tweak) throws Exception {
      Optional<String> before = direct.current();
      BuildConfig c = new BuildConfig();
      c.filesystem.putAll(settings);
      c.corpus = List.of("s3://" + BUCKET + "/" + name + "/corpus");
      c.snapshots = root;
      c.shards = 2;
      c.parallelism = 2;
      c.chunker.size = 48;
      c.chunker.overlap = 8;
      c.ingest.maxBadFraction = 0.5;
      c.restartDelayMs = 500;
      tweak.accept(c);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Manifest m;
      try {
        m = new SnapshotBuilder(c, new PrintStream(out, true, StandardCharsets.UTF_8))
            .build(BuildJob.localEnvironment(2)).manifest();
      } catch (Exception e) {
        Optional<String> after = direct.current();
        if (!after.equals(before)) {
          // Allowed: the compare-and-set went through and a later request of the publish failed. The
          // snapshot is whole (the invariants check it); the build said it failed.
          published.add(after.orElseThrow());
          throw new SnapshotException("the build failed after CURRENT moved to " + after.get() + ": "
              + clean("build", e), e);
        }
        throw e;
      }
      assertEquals(Optional.of(m.id()), direct.current(), "a build that succeeded published its snapshot");
      published.add(m.id());
      long docs = m.shards().stream().mapToLong(Manifest.ShardEntry::documents).sum();
      assertEquals(documents, docs, "a build that succeeded holds every document of its corpus: " + m.counters()
          + "\n" + out.toString(StandardCharsets.UTF_8));
      return m.id() + ": " + docs + " documents";
    }

    /** One more document in the corpus, put past the proxy. */
    private void addDocument() {
      added++;
      server.put(name + "/corpus/added-" + added + ".jsonl", ("{\"_id\": \"added-" + added + "\", \"title\": \"Kilns "
          + added + "\", \"text\": \"A kiln fires clay at a steady heat; batch " + added + " of glazed tiles cools"
          + " slowly overnight.\"}\n").getBytes(StandardCharsets.UTF_8));
      documents++;
    }

    /** {@code kiln snapshots gc --keep 1} over the proxy; the published snapshot and its predecessor stay. */
    private String gc() throws Exception {
      Optional<String> current = direct.current();
      Optional<String> previous = current.flatMap(new SnapshotPublisher(direct)::previousOf);
      List<String> args = new ArrayList<>(List.of("snapshots", "gc", "--keep", "1", "--stale-hours", "0.0003",
          "--snapshots", root));
      settings.forEach((k, v) -> args.addAll(List.of("--fs", k + "=" + v)));
      CliRun run = CliRun.of(args.toArray(String[]::new));
      current.ifPresent(id -> assertTrue(direct.hasManifest(id), "gc kept the published snapshot " + id));
      previous.ifPresent(id -> assertTrue(direct.hasManifest(id), "gc kept the snapshot before the published: " + id));
      if (run.exitCode() != Kiln.OK) {
        assertTrue((run.exitCode() == Kiln.FAILURE || run.exitCode() == Kiln.USAGE) && run.err().startsWith("kiln: ")
            && !run.err().contains("\tat "), "gc failed without a clean error: exit " + run.exitCode() + "\n"
            + run.err());
        throw new SnapshotException(run.err().lines().findFirst().orElse("").substring("kiln: ".length()));
      }
      return run.out().lines().filter(l -> l.startsWith("removed:")).findFirst().orElse(run.out()).trim();
    }

    /** The searcher follows CURRENT: opened (the first time), then reloaded until it serves what CURRENT names. */
    private String reload() throws Exception {
      if (searcher == null) {
        searcher = new ReloadingSearcher(ServedRemoteRoot.source(root, settings, cache),
            SearchOptions.defaults(), ReloadSettings.polling(0));
      }
      String target = direct.currentId();
      long deadline = System.nanoTime() + RELOAD_DEADLINE.toNanos();
      int failed = 0;
      String lastError = null;
      servedIsWhole();
      while (!target.equals(searcher.currentId()) && System.nanoTime() < deadline) {
        try {
          searcher.checkNow();
        } catch (RuntimeException e) {
          failed++;
          lastError = clean("reload", e);
        }
        servedIsWhole();
        if (!target.equals(searcher.currentId())) {
          Thread.sleep(100);
        }
      }
      if (!target.equals(searcher.currentId())) {
        throw new SnapshotException("still serving " + searcher.currentId() + ", not " + target + ", after " + failed
            + " failed reloads; the last: " + lastError);
      }
      return "serving " + target + (failed > 0 ? " after " + failed + " failed reloads (" + lastError + ")" : "");
    }

    /**
     * A second searcher of the root started on an empty cache (what {@code kiln serve} does at start):
     * it opens what CURRENT names, or fails to start; it never serves a partial copy.
     */
    private String coldStart() throws Exception {
      String target = direct.currentId();
      Path fresh = work.resolve("cold-" + name + "-" + (++coldStarts));
      try (ReloadingSearcher cold = new ReloadingSearcher(ServedRemoteRoot.source(root, settings, fresh),
          SearchOptions.defaults(), ReloadSettings.polling(0))) {
        assertEquals(target, cold.currentId());
        servedIsWhole(cold, fresh);
      }
      return "serving " + target;
    }

    private void servedIsWhole() throws Exception {
      servedIsWhole(searcher, cache);
    }

    /** The served snapshot was published, its local copy verifies in full, and it answers. */
    private void servedIsWhole(ReloadingSearcher searcher, Path cache) throws Exception {
      String id = searcher.currentId();
      assertNotNull(id, "the searcher serves a snapshot");
      assertTrue(published.contains(id), "serves " + id + ", which CURRENT named: " + published);
      SnapshotStore local = new SnapshotStore(cache);
      Manifest m = local.manifest(id);
      List<String> problems = new SnapshotVerifier(new LocalSnapshotStorage(cache))
          .check(m, SnapshotVerifier.Scope.SERVING, true).problems();
      assertEquals(List.of(), problems, "the served copy of " + id + " verifies in full");
      if (direct.hasManifest(id)) {
        assertTrue(Arrays.equals(direct.manifestBytes(id), local.manifestBytes(id)), "served as published: " + id);
      }
      try (ReloadingSearcher.Lease lease = searcher.acquire()) {
        assertEquals(id, lease.searcher().snapshotId());
        assertFalse(lease.searcher().bm25("sourdough starter", 3).isEmpty(), "answers from " + id);
      }
    }

    /** Checked past the proxy after every step. */
    private void invariants(String when) throws Exception {
      Optional<String> current = direct.current();
      if (current.isPresent()) {
        String id = current.get();
        published.add(id);
        Manifest m = direct.manifest(id);
        assertEquals(List.of(), direct.verify(m), name + ", " + when + ": the published snapshot " + id
            + " has every file its manifest lists, with its size and SHA-256, and no other");
      }
      assertFalse(server.blobs().blobExists(BUCKET, prefix + SnapshotLayout.CURRENT + ".lock"),
          name + ", " + when + ": no lock left behind");
    }

    @Override
    public void close() throws Exception {
      if (searcher != null) {
        searcher.close();
      }
    }
  }

  /**
   * A failed step's error as the CLI would print it (the message of Kiln's own error, else
   * {@link Kiln#describe}); it must be Kiln's own (a {@link SnapshotException} or
   * {@link ConfigException}) or name the S3 object or root it failed on.
   */
  static String clean(String step, Throwable e) {
    String described = e instanceof SnapshotException || e instanceof ConfigException
        ? e.getClass().getSimpleName() + ": " + e.getMessage() : Kiln.describe(e);
    boolean kilns = false;
    for (Throwable t = e; t != null; t = t.getCause()) {
      kilns |= t instanceof SnapshotException || t instanceof ConfigException;
    }
    if (!kilns && !described.contains("s3://")) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      fail(step + " failed without a clean error (neither Kiln's own nor naming the object): " + described + "\n"
          + trace);
    }
    return described;
  }

  private static Map<Fault, Long> flatten(Map<Op, Map<Fault, Long>> byOp) {
    Map<Fault, Long> byKind = new TreeMap<>();
    byOp.values().forEach(m -> m.forEach((f, n) -> byKind.merge(f, n, Long::sum)));
    return byKind;
  }

  /** The outcome tables: per round (scenario and faults), then one row per step. */
  static String table() {
    StringBuilder sb = new StringBuilder();
    sb.append("| scenario | faults | steps ok | steps failed cleanly | faults injected | delays | requests"
        + " | SDK retries | s |\n");
    sb.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    Map<String, long[]> rounds = new LinkedHashMap<>();
    synchronized (rows) {
      for (Row r : rows) {
        long[] t = rounds.computeIfAbsent(r.scenario() + " | " + r.faults(), k -> new long[7]);
        t[r.ok() ? 0 : 1]++;
        t[2] += r.injected().entrySet().stream().filter(e -> e.getKey() != Fault.DELAY).mapToLong(Map.Entry::getValue)
            .sum();
        t[3] += r.injected().getOrDefault(Fault.DELAY, 0L);
        t[4] += r.requests();
        t[5] += r.retries();
        t[6] += r.millis();
      }
    }
    rounds.forEach((k, t) -> sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %.1f |%n", k,
        t[0], t[1], t[2], t[3], t[4], t[5], t[6] / 1000.0)));
    sb.append('\n');
    sb.append("| scenario | faults | step | outcome | faults injected | requests | SDK retries | s | detail |\n");
    sb.append("|---|---|---|---|---|---:|---:|---:|---|\n");
    synchronized (rows) {
      for (Row r : rows) {
        String injected = r.injected().isEmpty() ? "-" : r.injected().entrySet().stream()
            .map(e -> e.getKey().name().toLowerCase(Locale.ROOT) + " " + e.getValue())
            .reduce((a, b) -> a + ", " + b).orElse("-");
        sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %d | %d | %.1f | %s |%n", r.scenario(),
            r.faults(), r.step(), r.ok() ? "ok" : "failed cleanly", injected, r.requests(), r.retries(),
            r.millis() / 1000.0, r.detail().replace("|", "/").replace("\n", " ")));
      }
    }
    return sb.toString();
  }
}
