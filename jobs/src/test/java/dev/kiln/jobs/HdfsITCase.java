package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.config.BuildConfig;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.VerifiedRecord;
import dev.kiln.snapshot.VerifyReport;
import dev.kiln.snapshot.io.HadoopSnapshotStorage;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.testing.CliOnly;
import dev.kiln.testing.CliOnly.Result;
import dev.kiln.testing.CliRun;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The corpus and the snapshots root on a real HDFS (an in-process {@link MiniDFSCluster}, one name node
 * and one data node on 127.0.0.1), reached through Flink's Hadoop file system bridge: read the corpus
 * from HDFS, publish to HDFS, search from it with the Searcher and with {@code kiln search}.
 */
class HdfsITCase {
  @TempDir static Path work;
  static MiniDFSCluster cluster;
  static FileSystem hdfs;
  static String base;
  static SnapshotBuilder.BuildReport report;

  @BeforeAll
  static void buildIntoHdfs() throws Exception {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, work.resolve("dfs").toString());
    for (String key : List.of("dfs.namenode.rpc-address", "dfs.namenode.http-address", "dfs.datanode.address",
        "dfs.datanode.http.address", "dfs.datanode.ipc.address")) {
      conf.set(key, "127.0.0.1:0");
    }
    conf.setBoolean("dfs.permissions.enabled", false);
    cluster = new MiniDFSCluster.Builder(conf, work.resolve("dfs").toFile()).numDataNodes(1).format(true).build();
    cluster.waitActive();
    hdfs = cluster.getFileSystem();
    base = "hdfs://127.0.0.1:" + cluster.getNameNodePort();

    Path fixture = Path.of(HdfsITCase.class.getResource("/fixture").toURI());
    try (OutputStream out = hdfs.create(new org.apache.hadoop.fs.Path("/corpus/corpus.jsonl"))) {
      out.write(Files.readAllBytes(fixture.resolve("corpus.jsonl")));
    }

    BuildConfig config = new BuildConfig();
    config.corpus = List.of(base + "/corpus");
    config.snapshots = base + "/snapshots";
    config.shards = 2;
    config.parallelism = 2;
    config.chunker.size = 48;
    config.chunker.overlap = 8;
    config.ingest.maxBadFraction = 0.5;
    // Hadoop client settings travel as flink.hadoop.* keys of the filesystem section; the default would be 3.
    config.filesystem.put("flink.hadoop.dfs.replication", "1");
    report = new SnapshotBuilder(config, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.shutdown(true);
    }
  }

  static String read(String path) throws Exception {
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(path);
    if (!hdfs.exists(p)) {
      return null;
    }
    try (InputStream in = hdfs.open(p)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void hdfsHoldsCurrentManifestEveryListedShardFileAndTheQuarantine() throws Exception {
    assertEquals(report.snapshotId() + "\n", read("/snapshots/CURRENT"));
    assertEquals(1, hdfs.getFileStatus(new org.apache.hadoop.fs.Path("/snapshots/CURRENT")).getReplication());
    String dir = "/snapshots/snapshots/" + report.snapshotId();
    Manifest m = SnapshotStore.json().readValue(read(dir + "/manifest.json"), Manifest.class);
    long goodLines = Files.readAllLines(Path.of(HdfsITCase.class.getResource("/fixture/corpus.jsonl").toURI()))
        .stream().filter(l -> l.startsWith("{\"_id\"")).count();
    assertEquals(goodLines, m.counters().get("documents"));
    assertEquals(2L, m.counters().get("quarantined"));
    assertEquals(2, m.shards().size());
    for (Manifest.ShardEntry s : m.shards()) {
      for (Manifest.FileEntry f : s.files()) {
        String file = dir + "/" + s.directory() + "/" + f.name();
        assertEquals(f.size(), hdfs.getFileStatus(new org.apache.hadoop.fs.Path(file)).getLen(), file);
        assertEquals(1, hdfs.getFileStatus(new org.apache.hadoop.fs.Path(file)).getReplication(),
            "written with the filesystem section's flink.hadoop.dfs.replication: " + file);
      }
    }
    assertTrue(hdfs.exists(new org.apache.hadoop.fs.Path("/snapshots/quarantine/" + report.snapshotId())),
        "the two bad fixture lines are quarantined into HDFS");
  }

  @Test
  void theSearcherLibraryOpensTheHdfsRootItself() throws Exception {
    try (Searcher searcher = Searcher.builder().root(base + "/snapshots").build()) {
      assertEquals(report.snapshotId(), searcher.snapshotId());
      assertEquals("sourdough", searcher.search("sourdough starter lactobacilli", SearchMode.HYBRID, 3)
          .results().get(0).docId());
    }
  }

  @Test
  void searchesTheSnapshotDownloadedFromHdfs() throws Exception {
    Path root = new SnapshotMirror(base + "/snapshots", work.resolve("mirror")).localize(null);
    try (Searcher searcher = Searcher.open(root)) {
      assertEquals(report.snapshotId(), searcher.snapshotId());
      List<SearchHit> hits = searcher.search("sourdough starter lactobacilli", SearchMode.HYBRID, 3).results();
      assertFalse(hits.isEmpty());
      assertEquals("sourdough", hits.get(0).docId());
    }
  }

  @Test
  void theSearchCommandAnswersFromAnHdfsRoot() throws Exception {
    CliRun run = CliRun.of("search", "--snapshots", base + "/snapshots", "--mode", "bm25", "--k", "3", "--json",
        "emperor penguins antarctic winter egg");
    assertEquals(0, run.exitCode(), run.err());
    JsonNode json = new ObjectMapper().readTree(run.out());
    assertEquals(report.snapshotId(), json.get("snapshot").asText());
    assertEquals("penguins", json.get("results").get(0).get("doc_id").asText());
  }

  @Test
  void theSearchCommandAnswersFromAnHdfsRootOnTheCliClasspathWithoutFlink() throws Exception {
    Result run = CliOnly.run(Map.of(), "search", "--snapshots",
        base + "/snapshots", "--mode", "bm25", "--k", "3", "--json", "emperor penguins antarctic winter egg");
    assertEquals(0, run.exitCode(), run.err());
    JsonNode json = new ObjectMapper().readTree(run.out());
    assertEquals(report.snapshotId(), json.get("snapshot").asText());
    assertEquals("penguins", json.get("results").get(0).get("doc_id").asText());
  }

  /** HDFS refuses a second exclusive create, so the lock file makes compare-and-set real there. */
  @Test
  void compareAndSetOnHdfsHasExactlyOneWinnerAmongConcurrentPublishers() throws Exception {
    int publishers = 4;
    CyclicBarrier start = new CyclicBarrier(publishers);
    ExecutorService pool = Executors.newFixedThreadPool(publishers);
    try {
      List<Future<Boolean>> won = new ArrayList<>();
      for (int i = 0; i < publishers; i++) {
        byte[] value = ("snapshot-" + i).getBytes(StandardCharsets.UTF_8);
        // One storage per publisher: the lock is the only thing they share, as separate processes would.
        HadoopSnapshotStorage st = new HadoopSnapshotStorage(base + "/cas", Map.of());
        won.add(pool.submit(() -> {
          start.await();
          return st.compareAndSet("CURRENT", null, value);
        }));
      }
      int winners = 0;
      for (Future<Boolean> f : won) {
        winners += f.get() ? 1 : 0;
      }
      assertEquals(1, winners, "exactly one first publish may win");
      assertFalse(hdfs.exists(new org.apache.hadoop.fs.Path(base.replaceFirst("^hdfs://[^/]+", "") + "/cas/CURRENT.lock")),
          "no lock is left behind");
    } finally {
      pool.shutdownNow();
    }
  }
  /**
   * Issue 44 on HDFS: a snapshot that references the build's files (as an incremental build's does)
   * publishes without hashing them while the build's record holds their file ids and times, and hashes
   * — and refuses, naming it — a file replaced since with other bytes of the same size (a new file id).
   */
  @Test
  void aReferencedFileReplacedOnHdfsIsHashedAtABuildsPublishAndRefusedByName() throws Exception {
    SnapshotStore store = RemoteStorages.store(base + "/snapshots", Map.of());
    String owner = report.snapshotId();
    VerifiedRecord record = store.verifiedRecord(owner).orElseThrow();
    assertTrue(record.versions().values().stream().allMatch(v -> v.startsWith("id=")), record.versions().toString());

    // A later snapshot referencing every shard file of the build (no corpus listing, no stored vectors).
    String child = "20991231T235959Z-0c0ffe";
    ObjectNode tree = (ObjectNode) SnapshotStore.json().readTree(store.manifestBytes(owner));
    tree.put("id", child).put("parent", owner).remove(List.of("corpus_files", "embeddings", "docstore"));
    for (JsonNode shard : tree.get("shards")) {
      shard.get("files").forEach(f -> ((ObjectNode) f).put("snapshot", owner));
    }
    store.storage().write(SnapshotLayout.manifestKey(child), SnapshotStore.json().writeValueAsBytes(tree));
    Manifest.ShardEntry shard = store.manifest(owner).shards().get(0);
    Manifest.FileEntry largest = shard.files().stream().max(Comparator.comparingLong(Manifest.FileEntry::size))
        .orElseThrow();
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/snapshots/snapshots/" + owner + "/"
        + shard.directory() + "/" + largest.name());
    byte[] good;
    try (InputStream in = hdfs.open(file)) {
      good = in.readAllBytes();
    }
    try {
      VerifyReport untouched = store.verifyAndReport(child, "build", false);
      assertEquals(List.of(), untouched.problems());
      assertEquals(shard.files().size() + store.manifest(owner).shards().get(1).files().size(),
          untouched.referencedFiles());
      assertEquals(0, untouched.hashedFiles(), untouched.describeReferenced());

      byte[] bad = good.clone();
      bad[bad.length / 2] ^= 0x01;
      hdfs.delete(file, false);
      try (OutputStream out = hdfs.create(file)) {
        out.write(bad);
      }
      VerifyReport replaced = store.verifyAndReport(child, "build", false);
      assertEquals(1, replaced.hashedFiles(), replaced.describeReferenced());
      assertEquals(List.of(shard.directory() + "/" + largest.name() + ": sha256 " + Checksums.sha256(bad)
          + ", manifest says " + largest.sha256()), replaced.problems());
    } finally {
      hdfs.delete(file, false);
      try (OutputStream out = hdfs.create(file)) {
        out.write(good);
      }
      store.storage().deleteTree(SnapshotLayout.snapshotKey(child));
    }
  }
}
