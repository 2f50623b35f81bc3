package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.operators.JobCounters;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.KilnProcess;
import dev.kiln.testing.S3Server;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resume and crash safety on a remote root (s3proxy on 127.0.0.1), with real {@code kiln build}
 * processes killed with {@code kill -9}: the vectors of a build killed mid-embed are in the bucket,
 * closed and checksummed, and the rerun reuses them; a build killed while a shard writer uploads its
 * files leaves {@code CURRENT} and every published snapshot as they were, and the rerun publishes a
 * snapshot whose every file checks out.
 */
class RemoteResumeITCase {
  static final String BUCKET = "kiln";

  @TempDir static Path work;
  static S3Server server;
  static Path corpus;

  @BeforeAll
  static void start() throws Exception {
    server = new S3Server(work.resolve("blobs"), BUCKET);
    corpus = Path.of(RemoteResumeITCase.class.getResource("/fixture/corpus.jsonl").toURI());
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private static Path config(String name, String root, Path corpusFile) throws Exception {
    StringBuilder yaml = new StringBuilder(String.join("\n",
        "corpus: [" + corpusFile + "]", "snapshots: " + root, "shards: 2", "parallelism: 2",
        "chunker: {size: 48, overlap: 8}", "embed: {part-chunks: 3}", "index: {recall-probe-samples: 5}",
        "ingest: {max-bad-fraction: 0.5}", "filesystem:", ""));
    server.settings().forEach((k, v) -> yaml.append("  ").append(k).append(": \"").append(v).append("\"\n"));
    return Files.writeString(work.resolve(name + ".yaml"), yaml);
  }

  private static String onlyUnfinished(SnapshotStore store) {
    List<String> unfinished = store.allIds().stream().filter(id -> !store.hasManifest(id)).toList();
    assertEquals(1, unfinished.size(), "one killed build: " + store.allIds());
    return unfinished.get(0);
  }

  @Test
  void aBuildKilledMidEmbedOnS3LeavesCheckedPartsInTheBucketThatTheRerunReuses() throws Exception {
    String root = "s3://" + BUCKET + "/resume/snapshots";
    Path cfg = config("resume", root, corpus);
    KilnProcess p = KilnProcess.start(work, "s3-resume-kill", "embed-part", List.of("build", "--config", cfg.toString()));
    p.awaitPause(180);
    assertEquals(137, p.kill9(), "SIGKILL");

    SnapshotStore store = RemoteStorages.store(root, server.settings());
    String killed = onlyUnfinished(store);
    List<String> names = store.storage().list(SnapshotLayout.snapshotKey(killed) + "embeddings/");
    Set<String> checked = names.stream().filter(n -> n.endsWith(".parquet.sha256"))
        .map(n -> n.substring(0, n.length() - ".sha256".length())).collect(Collectors.toSet());
    assertFalse(checked.isEmpty(), "a closed part and its checksum record reached the bucket: " + names);
    assertTrue(names.containsAll(checked), names.toString());

    CliRun rerun = CliRun.of("build", "--config", cfg.toString());
    assertEquals(0, rerun.exitCode(), rerun.err());
    Manifest m = store.manifest(store.currentId());
    long chunks = m.counters().get(JobCounters.CHUNKS);
    assertTrue(m.embeddings().reused() >= 3, "the killed build's uploaded part was reused: " + m.embeddings());
    assertTrue(m.embeddings().embedded() < chunks, "the rerun embedded only what was left: " + m.embeddings());
    assertEquals(chunks, m.embeddings().embedded() + m.embeddings().reused() + m.embeddings().deduplicated());
    assertEquals(List.of(killed), m.embeddings().resumedFrom());
    assertTrue(store.verify(m).isEmpty(), "the rerun's snapshot lists exactly its own files");
  }

  @Test
  void aBuildKilledWhileAWriterUploadsPublishesNothingAndTheRerunPublishesAWholeSnapshot() throws Exception {
    String root = "s3://" + BUCKET + "/upload/snapshots";
    Path small = work.resolve("small.jsonl");
    Files.write(small, Files.readAllLines(corpus).subList(0, 6));
    Path cfg = config("upload", root, small);
    CliRun first = CliRun.of("build", "--config", cfg.toString());
    assertEquals(0, first.exitCode(), first.err());
    SnapshotStore store = RemoteStorages.store(root, server.settings());
    String published = store.currentId();

    // The corpus changes; the next build is killed once a shard writer uploaded its first file.
    Files.write(small, Files.readAllLines(corpus).subList(0, 9));
    KilnProcess p = KilnProcess.start(work, "s3-upload-kill", "upload", List.of("build", "--config", cfg.toString()));
    p.awaitPause(180);
    assertEquals(137, p.kill9(), "SIGKILL");

    assertEquals(published, store.currentId(), "CURRENT did not move");
    assertEquals(List.of(published), store.list(), "no other snapshot has a manifest");
    String killed = onlyUnfinished(store);
    List<String> shardFiles = store.storage().list(SnapshotLayout.shardKey(killed, 0));
    List<String> shardFiles1 = store.storage().list(SnapshotLayout.shardKey(killed, 1));
    assertFalse(shardFiles.isEmpty() && shardFiles1.isEmpty(), "the kill came after an upload began");
    assertTrue(store.verify(store.manifest(published)).isEmpty(), "the published snapshot is untouched");

    CliRun rerun = CliRun.of("build", "--config", cfg.toString());
    assertEquals(0, rerun.exitCode(), rerun.err());
    String after = store.currentId();
    assertFalse(after.equals(published) || after.equals(killed), after);
    Manifest m = store.manifest(after);
    assertEquals(9, m.counters().get(JobCounters.RECORDS_READ), m.counters().toString());
    assertTrue(store.verify(m).isEmpty(), "every file of the rerun's snapshot checks out");
  }
}
