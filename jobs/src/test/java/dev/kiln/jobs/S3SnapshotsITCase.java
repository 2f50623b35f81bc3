package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.config.BuildConfig;
import dev.kiln.operators.JobCounters;
import dev.kiln.operators.fs.FlinkFileSystems;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.CorpusFiles;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.testing.CliOnly;
import dev.kiln.testing.CliOnly.Result;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.S3Server;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The corpus and the snapshots root in a bucket of a real S3-compatible server (s3proxy, in process,
 * on 127.0.0.1, filesystem blob store), reached through the {@code flink-s3-fs-presto} plugin: read
 * the corpus from the bucket, publish to the bucket, search from it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3SnapshotsITCase {
  static final String BUCKET = "kiln";
  @TempDir static Path work;
  static S3Server server;
  static SnapshotBuilder.BuildReport report;
  static Map<String, String> s3;

  @BeforeAll
  static void buildIntoTheBucket() throws Exception {
    server = new S3Server(work.resolve("blobs"), BUCKET);
    Path fixture = Path.of(S3SnapshotsITCase.class.getResource("/fixture").toURI());
    put("corpus/corpus.jsonl", Files.readAllBytes(fixture.resolve("corpus.jsonl")));
    put("corpus/md/guide/lighthouse.md", Files.readAllBytes(fixture.resolve("md/guide/lighthouse.md")));

    s3 = server.settings();
    BuildConfig config = new BuildConfig();
    config.filesystem.putAll(s3);
    config.corpus = List.of("s3://" + BUCKET + "/corpus");
    config.snapshots = "s3://" + BUCKET + "/snapshots";
    config.shards = 2;
    config.parallelism = 2;
    config.chunker.size = 48;
    config.chunker.overlap = 8;
    config.ingest.maxBadFraction = 0.5;
    report = new SnapshotBuilder(config, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2));
  }

  @Test
  void anIncrementalBuildFromTheBucketLeavesItsUnchangedObjectsUnread() throws Exception {
    BuildConfig config = new BuildConfig();
    config.filesystem.putAll(s3);
    config.corpus = List.of("s3://" + BUCKET + "/corpus");
    config.snapshots = work.resolve("local-root").toString();
    config.shards = 2;
    config.parallelism = 2;
    config.chunker.size = 48;
    config.chunker.overlap = 8;
    config.ingest.maxBadFraction = 0.5;
    Manifest first = new SnapshotBuilder(config, new PrintStream(new ByteArrayOutputStream(), true,
        StandardCharsets.UTF_8)).build(BuildJob.localEnvironment(2)).manifest();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Manifest second = new SnapshotBuilder(config, new PrintStream(out, true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2)).manifest();
    String log = out.toString(StandardCharsets.UTF_8);
    // The objects were put well before the first listing; the markdown file is clean, so it is not read
    // again; a file the first build quarantined records of is.
    Path tsv = new SnapshotStore(Path.of(config.snapshots)).layout().snapshotDir(second.id())
        .resolve(SnapshotLayout.CORPUS_FILES);
    CorpusFiles listing;
    try (var in = Files.newInputStream(tsv)) {
      listing = CorpusFiles.read(in);
    }
    assertTrue(listing.get("s3://" + BUCKET + "/corpus/md/guide/lighthouse.md").kept(), log);
    assertTrue(second.counters().get(JobCounters.RECORDS_UNREAD) >= 1, second.counters().toString());
    assertEquals(first.counters().get(JobCounters.RECORDS_READ),
        second.counters().get(JobCounters.RECORDS_READ)
            + second.counters().get(JobCounters.RECORDS_UNREAD));
    assertEquals(IncrementalBuildITCase.contents(Path.of(config.snapshots), first),
        IncrementalBuildITCase.contents(Path.of(config.snapshots), second));
  }

  static void put(String key, byte[] bytes) {
    server.put(key, bytes);
  }

  static String get(String key) throws Exception {
    return server.get(key);
  }

  /** The CLI tests below re-initialise the file systems with their own (sometimes wrong) settings. */
  @BeforeEach
  void goodSettings() {
    FlinkFileSystems.initialize(s3);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  @Order(1)
  void theBucketHoldsCurrentManifestAndEveryListedShardFile() throws Exception {
    assertEquals(report.snapshotId() + "\n", get("snapshots/CURRENT"));
    Manifest m = SnapshotStore.json().readValue(get("snapshots/snapshots/" + report.snapshotId() + "/manifest.json"),
        Manifest.class);
    assertEquals(8L, m.counters().get("documents"));
    assertEquals(2, m.shards().size());
    for (Manifest.ShardEntry s : m.shards()) {
      for (Manifest.FileEntry f : s.files()) {
        String key = "snapshots/snapshots/" + report.snapshotId() + "/" + s.directory() + "/" + f.name();
        assertEquals(f.size(), server.blobs().blobMetadata(BUCKET, key).getContentMetadata().getContentLength(), key);
      }
    }
    assertTrue(server.blobs().blobExists(BUCKET, "snapshots/quarantine/" + report.snapshotId() + "/part-00000.jsonl")
        || server.blobs().blobExists(BUCKET, "snapshots/quarantine/" + report.snapshotId() + "/part-00001.jsonl"),
        "the two bad fixture lines are quarantined into the bucket");
  }

  @Test
  @Order(1)
  void theSearcherLibraryOpensTheBucketRootItself() throws Exception {
    try (Searcher searcher = Searcher.builder().root("s3://" + BUCKET + "/snapshots").fileSystem(s3).build()) {
      assertEquals(report.snapshotId(), searcher.snapshotId());
      assertEquals("sourdough", searcher.search("sourdough starter lactobacilli", SearchMode.HYBRID, 3)
          .results().get(0).docId());
    }
  }

  @Test
  @Order(1)
  void searchesTheSnapshotDownloadedFromTheBucket() throws Exception {
    Path local = work.resolve("mirror");
    Path root = mirror(local).localize(null);
    try (Searcher searcher = Searcher.open(root)) {
      assertEquals(report.snapshotId(), searcher.snapshotId());
      List<SearchHit> hits = searcher.search("sourdough starter lactobacilli", SearchMode.HYBRID, 3).results();
      assertFalse(hits.isEmpty());
      assertEquals("sourdough", hits.get(0).docId());
      assertEquals("md/guide/lighthouse.md",
          searcher.search("lamp keeper lens beam for ships", SearchMode.BM25, 3).results().get(0).docId());
    }
    // A second localisation downloads nothing new and still opens.
    try (Stream<Path> files = Files.walk(local)) {
      long before = files.count();
      mirror(local).localize(null);
      try (Stream<Path> again = Files.walk(local)) {
        assertEquals(before, again.count());
      }
    }
  }

  /** A YAML config whose filesystem section points at the proxy, with the given secret key. */
  static Path searchConfig(String name, String secret) throws Exception {
    return Files.writeString(work.resolve(name + ".yaml"), "filesystem:\n"
        + "  s3.endpoint: " + s3.get("s3.endpoint") + "\n"
        + "  s3.access-key: kiln-access\n"
        + "  s3.secret-key: " + secret + "\n");
  }

  @Test
  @Order(1)
  void searchRunsFromTheBucketOnTheCliClasspathWithoutFlink() throws Exception {
    Path config = searchConfig("cli-only", "kiln-secret");
    Result search = CliOnly.run(Map.of(), "search", "--snapshots",
        "s3://" + BUCKET + "/snapshots", "--config", config.toString(), "--json", "--k", "3",
        "sourdough starter lactobacilli");
    assertEquals(0, search.exitCode(), search.err());
    JsonNode json = new ObjectMapper().readTree(search.out());
    assertEquals(report.snapshotId(), json.get("snapshot").asText());
    assertEquals("sourdough", json.get("results").get(0).get("doc_id").asText());
  }

  @Test
  @Order(1)
  void searchAndEvalTakeS3SettingsFromTheConfigAlone() throws Exception {
    assertNull(System.getenv("AWS_ACCESS_KEY_ID"), "the credentials must come from the config only");
    assertNull(System.getenv("AWS_SECRET_ACCESS_KEY"), "the credentials must come from the config only");
    Path config = searchConfig("search", "kiln-secret");
    CliRun search = CliRun.of("search", "--snapshots", "s3://" + BUCKET + "/snapshots", "--config", config.toString(),
        "--json", "--k", "3", "sourdough starter lactobacilli");
    assertEquals(0, search.exitCode(), search.err());
    JsonNode json = new ObjectMapper().readTree(search.out());
    assertEquals(report.snapshotId(), json.get("snapshot").asText());
    assertEquals("sourdough", json.get("results").get(0).get("doc_id").asText());

    Path fixture = Path.of(S3SnapshotsITCase.class.getResource("/fixture/eval").toURI());
    CliRun eval = CliRun.of("eval", "--snapshots", "s3://" + BUCKET + "/snapshots", "--config", config.toString(),
        "--queries", fixture.resolve("queries.jsonl").toString(), "--qrels", fixture.resolve("qrels.tsv").toString(),
        "--json");
    assertEquals(0, eval.exitCode(), eval.err());
    assertEquals(report.snapshotId(), new ObjectMapper().readTree(eval.out()).get("snapshot").asText());
  }

  @Test
  @Order(1)
  void wrongS3CredentialsFailNamingTheOptionsToFix() throws Exception {
    // --fs overrides the config's correct secret with a wrong one.
    CliRun run = CliRun.of("search", "--snapshots", "s3://" + BUCKET + "/snapshots",
        "--config", searchConfig("wrong", "kiln-secret").toString(), "--fs", "s3.secret-key=not-the-secret", "lamp");
    assertEquals(2, run.exitCode(), run.err());
    assertTrue(run.err().contains("refused the credentials") && run.err().contains("s3.secret-key")
        && run.err().contains("--fs"), run.err());
    assertFalse(run.err().contains("not-the-secret"), "secrets are never printed: " + run.err());
  }

  @Test
  @Order(1)
  void missingS3CredentialsFailBeforeAnyRequest() {
    CliRun half = CliRun.of("search", "--snapshots", "s3://" + BUCKET + "/snapshots",
        "--fs", "s3.endpoint=" + s3.get("s3.endpoint"), "--fs", "s3.access-key=kiln-access", "lamp");
    assertEquals(2, half.exitCode(), half.err());
    assertTrue(half.err().contains("s3.secret-key is not"), half.err());
    CliRun none = CliRun.of("search", "--snapshots", "s3://" + BUCKET + "/snapshots",
        "--fs", "s3.endpoint=" + s3.get("s3.endpoint"), "lamp");
    assertEquals(2, none.exitCode(), none.err());
    assertTrue(none.err().contains("no S3 credentials") && none.err().contains("s3.access-key"), none.err());
  }

  @Test
  @Order(1)
  void nothingWasWrittenToTheLocalDiskAsASnapshotsRoot() {
    assertFalse(Files.exists(Path.of("s3:")), "s3:// must never be taken for a local path");
  }

  /** The searcher's view of the bucket's root: a local copy, through the S3 storage. */
  static SnapshotMirror mirror(Path local) {
    String root = "s3://" + BUCKET + "/snapshots";
    return new SnapshotMirror(RemoteStorages.open(root, s3), root, local);
  }

  /** {@code kiln snapshots SUB ... --snapshots s3://kiln/snapshots} with this server's settings. */
  static CliRun snapshots(String... args) {
    List<String> cmd = new ArrayList<>(List.of("snapshots"));
    cmd.addAll(List.of(args));
    cmd.addAll(List.of("--snapshots", "s3://" + BUCKET + "/snapshots"));
    s3.forEach((k, v) -> cmd.addAll(List.of("--filesystem", k + "=" + v)));
    return CliRun.of(cmd.toArray(String[]::new));
  }

  @Test
  @Order(2)
  void theProtocolRanOnTheBucketAndTheCliReadsIt() throws Exception {
    String id = report.snapshotId();
    assertNull(get("snapshots/snapshots/" + id + "/STAGING"), "the staging marker is removed once the manifest is written");

    CliRun list = snapshots("list", "--json");
    assertEquals(0, list.exitCode(), list.err());
    JsonNode listed = new ObjectMapper().readTree(list.out());
    assertEquals(id, listed.get("current").asText());
    assertEquals(1, listed.get("snapshots").size());
    JsonNode row = listed.get("snapshots").get(0);
    assertEquals("published", row.get("state").asText());
    assertEquals(report.manifest().totalChunks(), row.get("chunks").asLong());
    assertEquals(2, row.get("shards").asInt());

    CliRun show = snapshots("show", id, "--json");
    assertEquals(0, show.exitCode(), show.err());
    JsonNode shown = new ObjectMapper().readTree(show.out());
    assertEquals(id, shown.get("id").asText());
    assertTrue(shown.get("published").asBoolean());
    assertTrue(shown.get("verified").asBoolean());
    assertEquals(0, shown.get("problems").size());
    long chunks = 0;
    long documents = 0;
    for (JsonNode shard : shown.get("shards")) {
      assertTrue(shard.get("verified").asBoolean());
      assertFalse(shard.get("files").isEmpty());
      for (JsonNode f : shard.get("files")) {
        assertTrue(f.get("sha256").asText().matches("[0-9a-f]{64}"), f.toString());
        assertTrue(f.get("size").asLong() > 0);
      }
      chunks += shard.get("chunks").asLong();
      documents += shard.get("documents").asLong();
    }
    assertEquals(report.manifest().totalChunks(), chunks);
    assertEquals(8, documents);
  }

  @Test
  @Order(3)
  void aFlippedByteInTheBucketIsRefusedByShowAndTheSearcher() throws Exception {
    String id = report.snapshotId();
    Manifest.ShardEntry shard = report.manifest().shards().stream().filter(s -> s.chunks() > 0).findFirst().orElseThrow();
    Manifest.FileEntry file = shard.files().stream().max((a, b) -> Long.compare(a.size(), b.size())).orElseThrow();
    String key = "snapshots/snapshots/" + id + "/" + shard.directory() + "/" + file.name();
    byte[] bytes = server.bytes(key);
    bytes[bytes.length / 2] ^= 0x01;
    put(key, bytes);

    CliRun show = snapshots("show", id, "--json");
    assertEquals(1, show.exitCode());
    JsonNode shown = new ObjectMapper().readTree(show.out());
    assertFalse(shown.get("verified").asBoolean());
    String name = shard.directory() + "/" + file.name();
    assertTrue(shown.get("problems").get(0).asText().startsWith(name + ": sha256"), shown.get("problems").toString());
    assertTrue(show.err().contains("failed verification") && show.err().contains(name), show.err());

    // The searcher's loading path (search, eval, serve on an s3:// root) downloads and checks each file.
    SnapshotException e = assertThrows(SnapshotException.class, () -> mirror(work.resolve("fresh-mirror")).localize(null));
    assertTrue(e.getMessage().contains("failed verification") && e.getMessage().contains(name + ": sha256"),
        e.getMessage());
  }
}
