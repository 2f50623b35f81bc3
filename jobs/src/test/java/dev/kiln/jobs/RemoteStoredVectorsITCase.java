package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.kiln.config.BuildConfig;
import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.LocalFiles;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.io.RemoteRoots;
import dev.kiln.snapshot.io.RemoteStorages;
import dev.kiln.testing.S3Server;
import dev.kiln.vectors.VectorFiles;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.JobListener;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stored vectors with an {@code s3://} snapshots root, as on a multi-host cluster: the client's local
 * mirror is wiped the moment the job ends, so anything the TaskManagers wrote to a local path the
 * client later reads is gone, as it would be on another machine. The embed subtasks must upload their
 * part files themselves, the manifest must describe exactly what is in the bucket, and the next build
 * must reuse those vectors from the bucket.
 */
class RemoteStoredVectorsITCase {
  static final String BUCKET = "kiln";
  @TempDir static Path work;
  static S3Server server;
  static String prefix;
  static String root;
  static Manifest first;
  static Manifest second;

  @BeforeAll
  static void buildTwiceIntoTheBucket() throws Exception {
    server = new S3Server(work.resolve("blobs"), BUCKET);
    // A root of its own, so that its local mirror (wiped below) is no other test's.
    prefix = work.getFileName() + "/snapshots";
    root = "s3://" + BUCKET + "/" + prefix;
    Path corpus = Files.copy(Path.of(RemoteStoredVectorsITCase.class.getResource("/fixture/corpus.jsonl").toURI()),
        work.resolve("corpus.jsonl"));
    first = build(corpus);
    second = build(corpus);
  }

  static Manifest build(Path corpus) throws Exception {
    BuildConfig config = new BuildConfig();
    config.filesystem.putAll(server.settings());
    config.corpus = List.of(corpus.toString());
    config.snapshots = root;
    config.shards = 2;
    config.parallelism = 2;
    config.ingest.maxBadFraction = 0.5; // the fixture quarantines 2 of its 9 lines on purpose
    config.chunker.size = 48;
    config.chunker.overlap = 8;
    // Full builds: over an unchanged corpus an incremental one would embed (and store) nothing, and
    // what is tested here is a full build reusing the bucket's stored vectors.
    config.incremental = "off";
    StreamExecutionEnvironment env = BuildJob.localEnvironment(2);
    env.registerJobListener(new JobListener() {
      @Override
      public void onJobSubmitted(JobClient client, Throwable t) {}

      @Override
      public void onJobExecuted(JobExecutionResult result, Throwable t) {
        deleteTree(RemoteRoots.localMirror(root)); // the TaskManagers' disks are not the client's
      }
    });
    return new SnapshotBuilder(config, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
        .build(env).manifest();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    if (root != null) {
      deleteTree(RemoteRoots.localMirror(root));
    }
  }

  @Test
  void theBucketHoldsExactlyTheStoredVectorsTheManifestNames() throws Exception {
    SnapshotStorage storage = RemoteStorages.open(root, server.settings());
    for (Manifest m : List.of(first, second)) {
      Manifest.EmbeddingsInfo e = m.embeddings();
      assertFalse(e.files().isEmpty(), "snapshot " + m.id() + " stores vectors");
      String dir = SnapshotLayout.snapshotKey(m.id()) + e.directory() + "/";
      assertEquals(e.files().stream().map(Manifest.FileEntry::name).sorted().toList(), storage.list(dir));
      Set<String> keys = new HashSet<>();
      long rows = 0;
      for (Manifest.FileEntry f : e.files()) {
        byte[] bytes = server.bytes(prefix + "/" + dir + f.name());
        assertEquals(f.size(), bytes.length, f.name());
        assertEquals(f.sha256(), Checksums.sha256(new ByteArrayInputStream(bytes)), f.name());
        Path local = Files.write(work.resolve(m.id() + "-" + f.name()), bytes);
        long[] n = {0};
        VectorFiles.read(local, e.modelFingerprint(), e.dimension(), (k, v) -> {
          keys.add(k);
          n[0]++;
        });
        rows += n[0];
      }
      assertEquals(keys.size(), rows, "a key is stored once");
      assertEquals(m.totalChunks(), rows, "every chunk's vector is stored, reused ones too");
    }
  }

  @Test
  void theNextBuildReusesEveryVectorFromTheBucket() {
    assertEquals(first.totalChunks(), first.embeddings().embedded());
    assertNull(first.embeddings().reusedFrom());
    assertEquals(first.id(), second.embeddings().reusedFrom());
    assertEquals(second.totalChunks(), second.embeddings().reused());
    assertEquals(0, second.embeddings().embedded());
    assertEquals(second.totalChunks(), second.counters().get("chunks.reused"));
  }

  static void deleteTree(Path dir) {
    try {
      LocalFiles.deleteTree(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
