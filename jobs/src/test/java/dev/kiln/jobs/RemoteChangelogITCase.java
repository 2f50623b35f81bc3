package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.config.BuildConfig;
import dev.kiln.index.ParentStoreWriter;
import dev.kiln.index.ShardSchema;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.testing.EmbeddedKafka;
import dev.kiln.testing.KilnProcess;
import dev.kiln.testing.S3Server;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.MultiBits;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Changelog builds on remote snapshots roots: the same base (from the JSONL fixture) and the same
 * topic range of upserts and deletes built on a local root, on an {@code s3://} root (s3proxy) and on an
 * {@code hdfs://} root (MiniDFSCluster); the published remote snapshots hold exactly the chunks and
 * parents of the local one. A {@code kiln serve} process follows the HDFS root to the changelog
 * snapshot, and a damaged base object on S3 fails the next changelog build without publishing.
 */
class RemoteChangelogITCase {
  static final String TOPIC = "remote-changelog";
  static final String BUCKET = "kiln";

  @TempDir static Path work;
  static EmbeddedKafka kafka;
  static S3Server s3;
  static MiniDFSCluster dfs;
  static FileSystem hdfs;
  static String s3Root;
  static String hdfsRoot;
  static Path corpus;
  static Map<String, Manifest> bases = new TreeMap<>();
  static Map<String, Manifest> changed = new TreeMap<>();
  static Map<String, Path> localCopies = new TreeMap<>();
  static String hdfsServedAfter;
  static JsonNode hdfsServedSearch;

  @BeforeAll
  static void buildOnThreeRoots() throws Exception {
    kafka = new EmbeddedKafka(work);
    kafka.createTopic(TOPIC, 2);
    s3 = new S3Server(work.resolve("blobs"), BUCKET);
    s3Root = "s3://" + BUCKET + "/snapshots";
    startHdfs();
    hdfsRoot = "hdfs://127.0.0.1:" + dfs.getNameNodePort() + "/snapshots";
    corpus = work.resolve("corpus.jsonl");
    Files.copy(Path.of(RemoteChangelogITCase.class.getResource("/fixture/corpus.jsonl").toURI()), corpus);

    Map<String, String> roots = Map.of("local", work.resolve("local").toString(), "s3", s3Root, "hdfs", hdfsRoot);
    for (Map.Entry<String, String> r : roots.entrySet()) {
      BuildConfig c = config(r.getValue());
      c.corpus = List.of(corpus.toString());
      bases.put(r.getKey(), build(c));
    }
    try (KafkaProducer<String, String> p = kafka.producer()) {
      upsert(p, "tides", "Tidal theory revised", "Tides are now blamed on a zebrafinch choir singing to the sea.");
      upsert(p, "glaciers", "Glaciers", "Glaciers flow downhill under their own weight, grinding valleys into U shapes.");
      delete(p, "bees");
      delete(p, "unicorns");
      upsert(p, "sourdough", "Sourdough", "marmalade replaces the starter");
      delete(p, "sourdough");
      delete(p, "compilers");
      upsert(p, "compilers", "Register allocation", "Linear scan allocation is quokka fast for JIT compilers.");
    }
    // A server following the HDFS root sees the changelog snapshot replace the base.
    KilnProcess serve = KilnProcess.start(work, "serve-hdfs", null, false,
        List.of("-Dkiln.cache.dir=" + work.resolve("serve-cache")),
        List.of("serve", "--snapshots", hdfsRoot, "--port", "0", "--poll-ms", "200"));
    try {
      int port = RemoteServeITCase.awaitPort(serve);
      assertEquals(bases.get("hdfs").id(), RemoteServeITCase.get(port, "/snapshot").get("snapshot").asText());
      for (Map.Entry<String, String> r : roots.entrySet()) {
        BuildConfig c = config(r.getValue());
        c.changelog.topic = TOPIC;
        c.changelog.bootstrap = kafka.bootstrap();
        changed.put(r.getKey(), build(c));
      }
      RemoteServeITCase.awaitSnapshot(port, changed.get("hdfs").id(), serve);
      hdfsServedAfter = RemoteServeITCase.get(port, "/snapshot").get("snapshot").asText();
      hdfsServedSearch = RemoteServeITCase.get(port, "/search?q=" + RemoteServeITCase.enc("zebrafinch choir")
          + "&k=3&mode=bm25");
    } finally {
      serve.kill9();
    }
    localCopies.put("local", work.resolve("local"));
    localCopies.put("s3", new SnapshotMirror(RemoteStorages.open(s3Root, s3.settings()), s3Root, work.resolve("s3-copy"))
        .localize(null));
    localCopies.put("hdfs", new SnapshotMirror(hdfsRoot, work.resolve("hdfs-copy")).localize(null));
  }

  static void startHdfs() throws Exception {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, work.resolve("dfs").toString());
    for (String key : List.of("dfs.namenode.rpc-address", "dfs.namenode.http-address", "dfs.datanode.address",
        "dfs.datanode.http.address", "dfs.datanode.ipc.address")) {
      conf.set(key, "127.0.0.1:0");
    }
    conf.setBoolean("dfs.permissions.enabled", false);
    dfs = new MiniDFSCluster.Builder(conf, work.resolve("dfs").toFile()).numDataNodes(1).format(true).build();
    dfs.waitActive();
    hdfs = dfs.getFileSystem();
  }

  @AfterAll
  static void stop() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
    if (s3 != null) {
      s3.close();
    }
    if (dfs != null) {
      dfs.shutdown(true);
    }
  }

  static BuildConfig config(String root) {
    BuildConfig c = new BuildConfig();
    c.snapshots = root;
    c.shards = 2;
    c.parallelism = 2;
    c.ingest.maxBadFraction = 0.5;
    c.chunker.size = 48;
    c.chunker.overlap = 8;
    c.chunker.parents.enabled = true;
    c.chunker.parents.size = 96;
    if (root.startsWith("s3://")) {
      c.filesystem.putAll(s3.settings());
    } else if (root.startsWith("hdfs://")) {
      c.filesystem.put("flink.hadoop.dfs.replication", "1");
    }
    return c;
  }

  static Manifest build(BuildConfig c) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      return new SnapshotBuilder(c, new PrintStream(out, true, StandardCharsets.UTF_8))
          .build(BuildJob.localEnvironment(2)).manifest();
    } finally {
      System.out.println(out.toString(StandardCharsets.UTF_8));
    }
  }

  static void upsert(KafkaProducer<String, String> p, String id, String title, String text) throws Exception {
    kafka.send(p, TOPIC, id, "{\"op\": \"upsert\", \"id\": \"" + id + "\", \"title\": \"" + title
        + "\", \"text\": \"" + text + "\"}");
  }

  static void delete(KafkaProducer<String, String> p, String id) throws Exception {
    kafka.send(p, TOPIC, id, "{\"op\": \"delete\", \"id\": \"" + id + "\"}");
  }

  /** id → doc id + text of every chunk (or parent, with {@code parents}) of a snapshot's local copy. */
  static Map<String, String> contents(Path root, String id, boolean parents) throws Exception {
    SnapshotLayout layout = new SnapshotLayout(root);
    Map<String, String> all = new TreeMap<>();
    for (int s = 0; s < 2; s++) {
      Path dir = parents ? layout.parentsDir(id, s) : layout.shardDir(id, s);
      try (FSDirectory d = FSDirectory.open(dir); DirectoryReader r = DirectoryReader.open(d)) {
        StoredFields fields = r.storedFields();
        // A continued docstore part keeps the base's segments: removed parents are deleted, not merged away.
        Bits live = MultiBits.getLiveDocs(r);
        for (int doc = 0; doc < r.maxDoc(); doc++) {
          if (live != null && !live.get(doc)) {
            continue;
          }
          var f = fields.document(doc);
          if (parents) {
            all.put(f.get(ParentStoreWriter.PARENT_ID), f.get(ParentStoreWriter.DOC_ID) + "|"
                + f.get(ParentStoreWriter.TEXT));
          } else {
            all.put(f.get(ShardSchema.CHUNK_ID), f.get(ShardSchema.DOC_ID) + "|" + f.get(ShardSchema.TEXT));
          }
        }
      }
    }
    return all;
  }

  @Test
  void remoteChangelogSnapshotsHoldExactlyWhatTheLocalOneHolds() throws Exception {
    Map<String, String> local = contents(localCopies.get("local"), changed.get("local").id(), false);
    Map<String, String> localParents = contents(localCopies.get("local"), changed.get("local").id(), true);
    assertEquals(List.of("chess", "compilers", "glaciers", "penguins", "tides", "volcano"),
        local.values().stream().map(v -> v.substring(0, v.indexOf('|'))).distinct().sorted().toList());
    for (String root : List.of("s3", "hdfs")) {
      Manifest m = changed.get(root);
      assertEquals(bases.get(root).id(), m.changelog().base(), root);
      assertEquals(local, contents(localCopies.get(root), m.id(), false), root + ": chunks");
      assertEquals(localParents, contents(localCopies.get(root), m.id(), true), root + ": parents");
      Manifest.ChangelogInfo l = changed.get("local").changelog();
      assertEquals(List.of(l.upserts(), l.deletes(), l.unknownDeletes()),
          List.of(m.changelog().upserts(), m.changelog().deletes(), m.changelog().unknownDeletes()), root);
      assertEquals(new TreeMap<>(l.offsets()), new TreeMap<>(m.changelog().offsets()), root);
      assertEquals(changed.get("local").totalChunks(), m.totalChunks(), root);
      assertEquals(changed.get("local").docstore().parents(), m.docstore().parents(), root);
    }
  }

  @Test
  void eachRemoteRootPublishedItsChangelogSnapshot() throws Exception {
    assertEquals(changed.get("s3").id() + "\n", s3.get("snapshots/CURRENT"));
    try (InputStream in = hdfs.open(new org.apache.hadoop.fs.Path("/snapshots/CURRENT"))) {
      assertEquals(changed.get("hdfs").id() + "\n", new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void theServerFollowingTheHdfsRootMovedToTheChangelogSnapshot() {
    assertEquals(changed.get("hdfs").id(), hdfsServedAfter);
    assertEquals(changed.get("hdfs").id(), hdfsServedSearch.get("snapshot").asText());
    assertEquals("tides", hdfsServedSearch.get("results").get(0).get("doc_id").asText());
  }

  /** The damaged object is repaired afterwards; CURRENT stays where it was, as asserted. */
  @Test
  void aDamagedBaseObjectFailsTheNextChangelogBuildAndPublishesNothing() throws Exception {
    String base = changed.get("s3").id();
    Manifest m = changed.get("s3");
    Manifest.ShardEntry shard = m.shards().get(1);
    Manifest.FileEntry file = shard.files().stream()
        .max(Comparator.comparingLong(Manifest.FileEntry::size)).orElseThrow();
    String key = "snapshots/snapshots/" + base + "/" + shard.directory() + "/" + file.name();
    byte[] good = s3.bytes(key);
    byte[] bad = good.clone();
    bad[bad.length / 3] ^= 0x10;
    s3.put(key, bad);
    try {
      BuildConfig c = config(s3Root);
      c.changelog.topic = TOPIC;
      c.changelog.bootstrap = kafka.bootstrap();
      Exception e = assertThrows(Exception.class, () -> build(c));
      String messages = chain(e);
      assertTrue(messages.contains("failed verification") && messages.contains(file.name()), messages);
      assertEquals(base + "\n", s3.get("snapshots/CURRENT"), "nothing was published over the base");
    } finally {
      s3.put(key, good);
    }
  }

  static String chain(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      b.append(t).append(" <- ");
    }
    return b.toString();
  }
}
