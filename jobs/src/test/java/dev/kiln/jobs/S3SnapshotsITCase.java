package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.BuildConfig;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.FlinkFileSystems;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.testing.CliRun;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.Blob;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The corpus and the snapshots root in a bucket of a real S3-compatible server (s3proxy, in process,
 * on 127.0.0.1, filesystem blob store), reached through the {@code flink-s3-fs-presto} plugin: read
 * the corpus from the bucket, publish to the bucket, search from it.
 */
class S3SnapshotsITCase {
  static final String BUCKET = "kiln";
  @TempDir static Path work;
  static S3Proxy proxy;
  static BlobStoreContext context;
  static BlobStore store;
  static SnapshotBuilder.BuildReport report;
  static Map<String, String> s3;

  @BeforeAll
  static void buildIntoTheBucket() throws Exception {
    Properties props = new Properties();
    props.setProperty("jclouds.filesystem.basedir", Files.createDirectories(work.resolve("blobs")).toString());
    context = ContextBuilder.newBuilder("filesystem").overrides(props).build(BlobStoreContext.class);
    store = context.getBlobStore();
    store.createContainerInLocation(null, BUCKET);
    proxy = S3Proxy.builder().blobStore(store).endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "kiln-access", "kiln-secret").build();
    proxy.start();
    while (!"STARTED".equals(proxy.getState())) {
      Thread.onSpinWait();
    }
    Path fixture = Path.of(S3SnapshotsITCase.class.getResource("/fixture").toURI());
    put("corpus/corpus.jsonl", Files.readAllBytes(fixture.resolve("corpus.jsonl")));
    put("corpus/md/guide/lighthouse.md", Files.readAllBytes(fixture.resolve("md/guide/lighthouse.md")));

    s3 = Map.of("s3.endpoint", "http://127.0.0.1:" + proxy.getPort(), "s3.path.style.access", "true",
        "s3.access-key", "kiln-access", "s3.secret-key", "kiln-secret");
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

  static void put(String key, byte[] bytes) {
    store.putBlob(BUCKET, store.blobBuilder(key).payload(bytes).contentLength(bytes.length).build());
  }

  static String get(String key) throws Exception {
    Blob b = store.getBlob(BUCKET, key);
    if (b == null) {
      return null;
    }
    try (InputStream in = b.getPayload().openStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The CLI tests below re-initialise the file systems with their own (sometimes wrong) settings. */
  @BeforeEach
  void goodSettings() {
    FlinkFileSystems.initialize(s3);
  }

  @AfterAll
  static void stop() throws Exception {
    if (proxy != null) {
      proxy.stop();
    }
    if (context != null) {
      context.close();
    }
  }

  @Test
  void theBucketHoldsCurrentManifestAndEveryListedShardFile() throws Exception {
    assertEquals(report.snapshotId() + "\n", get("snapshots/CURRENT"));
    Manifest m = SnapshotStore.json().readValue(get("snapshots/snapshots/" + report.snapshotId() + "/manifest.json"),
        Manifest.class);
    assertEquals(8L, m.counters().get("documents"));
    assertEquals(2, m.shards().size());
    for (Manifest.ShardEntry s : m.shards()) {
      for (Manifest.FileEntry f : s.files()) {
        String key = "snapshots/snapshots/" + report.snapshotId() + "/" + s.directory() + "/" + f.name();
        assertEquals(f.size(), store.blobMetadata(BUCKET, key).getContentMetadata().getContentLength(), key);
      }
    }
    assertTrue(store.blobExists(BUCKET, "snapshots/quarantine/" + report.snapshotId() + "/part-00000.jsonl")
        || store.blobExists(BUCKET, "snapshots/quarantine/" + report.snapshotId() + "/part-00001.jsonl"),
        "the two bad fixture lines are quarantined into the bucket");
  }

  @Test
  void searchesTheSnapshotDownloadedFromTheBucket() throws Exception {
    Path local = work.resolve("mirror");
    Path root = new SnapshotMirror("s3://" + BUCKET + "/snapshots", local).localize(null);
    try (Searcher searcher = Searcher.open(root, null)) {
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
      new SnapshotMirror("s3://" + BUCKET + "/snapshots", local).localize(null);
      try (Stream<Path> again = Files.walk(local)) {
        assertEquals(before, again.count());
      }
    }
  }

  /** A YAML config whose filesystem section points at the proxy, with the given secret key. */
  static Path searchConfig(String name, String secret) throws Exception {
    return Files.writeString(work.resolve(name + ".yaml"), "filesystem:\n"
        + "  s3.endpoint: http://127.0.0.1:" + proxy.getPort() + "\n"
        + "  s3.access-key: kiln-access\n"
        + "  s3.secret-key: " + secret + "\n");
  }

  @Test
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
  void missingS3CredentialsFailBeforeAnyRequest() {
    CliRun half = CliRun.of("search", "--snapshots", "s3://" + BUCKET + "/snapshots",
        "--fs", "s3.endpoint=http://127.0.0.1:" + proxy.getPort(), "--fs", "s3.access-key=kiln-access", "lamp");
    assertEquals(2, half.exitCode(), half.err());
    assertTrue(half.err().contains("s3.secret-key is not"), half.err());
    CliRun none = CliRun.of("search", "--snapshots", "s3://" + BUCKET + "/snapshots",
        "--fs", "s3.endpoint=http://127.0.0.1:" + proxy.getPort(), "lamp");
    assertEquals(2, none.exitCode(), none.err());
    assertTrue(none.err().contains("no S3 credentials") && none.err().contains("s3.access-key"), none.err());
  }

  @Test
  void nothingWasWrittenToTheLocalDiskAsASnapshotsRoot() {
    assertFalse(Files.exists(Path.of("s3:")), "s3:// must never be taken for a local path");
  }
}
