package dev.kiln.jobs;

import static dev.kiln.jobs.UnchangedFilesITCase.docs;
import static dev.kiln.jobs.UnchangedFilesITCase.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.config.BuildConfig;
import dev.kiln.operators.JobCounters;
import dev.kiln.snapshot.CorpusFiles;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.snapshot.io.SnapshotMirror;
import dev.kiln.testing.S3Server;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.jclouds.blobstore.options.ListContainerOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incremental builds that leave unchanged corpus files unread with both the corpus and the snapshots
 * root in a bucket of a real S3-compatible server (s3proxy on 127.0.0.1): the base's listing is read
 * from the bucket, whether its chunks carry record positions is taken from its manifest (no shard is
 * downloaded to look), and the source's enumerator and the shard writers read the new listing from the
 * bucket. The corpus:
 * <ul>
 *   <li>{@code a.jsonl}: unchanged, clean: not read, its documents kept from the base;
 *   <li>{@code b.jsonl}: one record rewritten: read;
 *   <li>{@code c.jsonl}: unchanged, with a malformed line: read again, the line quarantined again;
 *   <li>{@code e.jsonl}: added.
 * </ul>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RemoteUnchangedFilesITCase {
  static final String BUCKET = "kiln";
  static final String ROOT = "s3://" + BUCKET + "/snapshots";
  static final String CORPUS = "s3://" + BUCKET + "/corpus";

  @TempDir static Path work;
  static S3Server server;
  static Map<String, String> s3;
  static Manifest first;
  static Manifest second;
  static String secondOutput;

  @BeforeAll
  static void buildFromTheBucketThenChangeOneObjectThenBuildAgain() throws Exception {
    server = new S3Server(work.resolve("blobs"), BUCKET);
    s3 = server.settings();
    put("a.jsonl", docs("a", 8), List.of());
    put("b.jsonl", docs("b", 8), List.of());
    put("c.jsonl", docs("c", 5), List.of("{\"_id\": \"broken\", \"text\": "));
    outsideTheRacyWindow();
    first = build(ROOT, c -> {}, new ByteArrayOutputStream());

    List<String> b = docs("b", 8);
    b.set(3, line("b03", "Rewritten: document b03 now covers the migration of eels to the Sargasso Sea."));
    put("b.jsonl", b, List.of());
    put("e.jsonl", docs("e", 3), List.of());
    outsideTheRacyWindow();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    second = build(ROOT, c -> {}, out);
    secondOutput = out.toString(StandardCharsets.UTF_8);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  /**
   * An object's modification time is the server's time of its PUT (to the second): a listing within
   * {@link CorpusListing#RACY_MILLIS} of it would not trust it. Waits until every corpus object's
   * Last-Modified, as the server reports it, lies outside that window of this client's clock.
   */
  static void outsideTheRacyWindow() throws InterruptedException {
    long deadline = System.currentTimeMillis() + 30_000;
    while (true) {
      long newest = 0;
      for (var o : server.blobs().list(BUCKET, ListContainerOptions.Builder
          .prefix("corpus/").recursive())) {
        newest = Math.max(newest, server.blobs().blobMetadata(BUCKET, o.getName()).getLastModified().getTime());
      }
      if (System.currentTimeMillis() - newest > CorpusListing.RACY_MILLIS) {
        return;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("corpus objects still modified " + newest + ": the server's clock runs ahead");
      }
      Thread.sleep(50);
    }
  }

  static void put(String name, List<String> lines, List<String> more) {
    List<String> all = new ArrayList<>(lines);
    all.addAll(more);
    server.put("corpus/" + name, (String.join("\n", all) + "\n").getBytes(StandardCharsets.UTF_8));
  }

  static Manifest build(String snapshots, Consumer<BuildConfig> tweak, ByteArrayOutputStream out) throws Exception {
    return SmallBuilds.build(CORPUS, snapshots, c -> {
      c.filesystem.putAll(s3);
      c.ingest.maxBadFraction = 0.5;
      tweak.accept(c);
    }, out);
  }

  static SnapshotMirror mirror(Path local) {
    return new SnapshotMirror(RemoteStorages.open(ROOT, s3), ROOT, local);
  }

  @Test
  @Order(1)
  void everyManifestRecordsThatItsShardsCarryRecordPositions() {
    assertEquals(0L, first.counters().get(JobCounters.SHARDS_WITHOUT_POSITIONS), first.counters().toString());
    assertEquals(0L, second.counters().get(JobCounters.SHARDS_WITHOUT_POSITIONS), second.counters().toString());
  }

  @Test
  @Order(2)
  void anUnchangedCleanObjectIsNotReadAndItsDocumentsAreKept() throws Exception {
    assertTrue(secondOutput.contains("+ incremental: yes, over CURRENT " + first.id()), secondOutput);
    assertTrue(secondOutput.contains("1 of 4 corpus files unchanged since CURRENT " + first.id()), secondOutput);
    Map<String, Long> c = second.counters();
    assertEquals(8, c.get(JobCounters.RECORDS_UNREAD), "a.jsonl's eight records: " + c);
    assertEquals(8 + 6 + 3, c.get(JobCounters.RECORDS_READ), "b, c (with its bad line) and e: " + c);
    assertEquals(Map.of("malformed_json", 1L), second.quarantine().byReason());
    assertEquals(Map.of("a.jsonl", true, "b.jsonl", false, "c.jsonl", false, "e.jsonl", false), listing(second));
  }

  @Test
  @Order(3)
  void theBucketsSnapshotHoldsExactlyWhatAFullBuildOfTheSameCorpusHolds() throws Exception {
    Path fullRoot = work.resolve("full");
    Manifest full = build(fullRoot.toString(), c -> c.incremental = "off", new ByteArrayOutputStream());
    // The download hashes every file, corpus-files.tsv included, against the manifest.
    Path local = mirror(work.resolve("mirror")).localize(second.id());
    assertEquals(IncrementalBuildITCase.contents(fullRoot, full), IncrementalBuildITCase.contents(local, second));
  }

  @Test
  @Order(4)
  void aBaseThatDoesNotRecordItsPositionsMeansEveryObjectIsRead() throws Exception {
    String key = "snapshots/" + SnapshotLayout.snapshotKey(second.id()) + SnapshotLayout.MANIFEST;
    byte[] original = server.bytes(key);
    for (Long without : new Long[] {null, 1L}) {
      ObjectNode m = (ObjectNode) SnapshotStore.json().readTree(original);
      ObjectNode counters = (ObjectNode) m.get("counters");
      if (without == null) {
        counters.remove(JobCounters.SHARDS_WITHOUT_POSITIONS);
      } else {
        counters.put(JobCounters.SHARDS_WITHOUT_POSITIONS, without);
      }
      server.put(key, SnapshotStore.json().writeValueAsBytes(m));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Manifest next;
      try {
        next = build(ROOT, c -> {}, out);
      } finally {
        server.put(key, original);
        server.put("snapshots/" + SnapshotLayout.CURRENT, (second.id() + "\n").getBytes(StandardCharsets.UTF_8));
      }
      String log = out.toString(StandardCharsets.UTF_8);
      assertTrue(log.contains(without == null ? "does not record whether its chunks carry record positions"
          : "holds chunks without a record position"), log);
      assertTrue(log.contains("+ incremental: yes"), "still incremental, reading every object: " + log);
      assertEquals(0, next.counters().get(JobCounters.RECORDS_UNREAD), next.counters().toString());
      assertEquals(8 + 8 + 6 + 3, next.counters().get(JobCounters.RECORDS_READ), next.counters().toString());
      assertEquals(IncrementalBuildITCase.contents(mirror(work.resolve("m-second-" + without)).localize(second.id()),
          second), IncrementalBuildITCase.contents(mirror(work.resolve("m-next-" + without)).localize(next.id()), next));
    }
  }

  /** Object name → kept, from a snapshot's corpus-files.tsv in the bucket. */
  private static Map<String, Boolean> listing(Manifest m) throws Exception {
    byte[] tsv = server.bytes("snapshots/" + SnapshotLayout.snapshotKey(m.id()) + SnapshotLayout.CORPUS_FILES);
    Map<String, Boolean> out = new TreeMap<>();
    for (CorpusFiles.Entry e : CorpusFiles.read(new ByteArrayInputStream(tsv)).byUri().values()) {
      out.put(e.uri().substring(e.uri().lastIndexOf('/') + 1), e.kept());
    }
    return out;
  }
}
