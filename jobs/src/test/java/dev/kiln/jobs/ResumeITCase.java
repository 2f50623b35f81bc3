package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.operators.JobCounters;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.KilnProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resume: the vectors a failed or killed build computed are not lost. Embed subtasks close and
 * checksum their stored-vector parts as they go; the next build into the same root reuses them though
 * the failed build never wrote a manifest, and gc removes them after its window.
 */
class ResumeITCase {
  @TempDir Path work;

  private Path config(Path root, Path corpus, double maxBad) throws Exception {
    Path file = work.resolve("build-" + maxBad + ".yaml");
    Files.writeString(file, String.join("\n",
        "corpus: [" + corpus + "]", "snapshots: " + root, "shards: 2", "parallelism: 2",
        "chunker: {size: 48, overlap: 8}", "embed: {part-chunks: 3}", "index: {recall-probe-samples: 5}",
        "ingest: {max-bad-fraction: " + maxBad + "}", ""));
    return file;
  }

  private static List<Path> parts(Path snapshotDir) throws Exception {
    Path dir = snapshotDir.resolve("embeddings");
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.toString().endsWith(".parquet") && Files.exists(Path.of(p + ".sha256"))).toList();
    }
  }

  @Test
  void aBuildKilledWhileEmbeddingLeavesClosedPartsThatTheRerunReuses() throws Exception {
    Path corpus = Path.of(ResumeITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    Path root = work.resolve("snapshots");
    Path cfg = config(root, corpus, 0.5);
    // Killed (kill -9) right after an embed subtask closed its first part of 3 vectors.
    KilnProcess p = KilnProcess.start(work, "resume-kill", "embed-part", List.of("build", "--config", cfg.toString()));
    p.awaitPause(180);
    assertEquals(137, p.kill9(), "SIGKILL");
    Path killed;
    try (Stream<Path> s = Files.list(root.resolve("snapshots"))) {
      killed = s.findFirst().orElseThrow();
    }
    List<Path> left = parts(killed);
    assertFalse(left.isEmpty(), "a closed, checksummed part survived the kill");

    CliRun rerun = CliRun.of("build", "--config", cfg.toString());
    assertEquals(0, rerun.exitCode(), rerun.err());
    SnapshotStore store = new SnapshotStore(root);
    Manifest m = store.manifest(store.currentId());
    long chunks = m.counters().get(JobCounters.CHUNKS);
    assertTrue(m.embeddings().reused() >= 3, "the killed build's closed part was reused: " + m.embeddings());
    assertEquals(chunks, m.embeddings().embedded() + m.embeddings().reused() + m.embeddings().deduplicated(),
        m.embeddings().toString());
    assertTrue(m.embeddings().embedded() < chunks, "the rerun embedded only what was left");
    assertEquals(List.of(killed.getFileName().toString()), m.embeddings().resumedFrom());
    assertTrue(store.verify(m).isEmpty(), "the rerun's snapshot lists exactly its own parts");
  }

  @Test
  void aBuildThatFailsKeepsItsVectorsForTheNextBuildAndGcRemovesThemAfterTheWindow() throws Exception {
    Path corpus = work.resolve("corpus.jsonl");
    List<String> lines = new ArrayList<>(Files.readAllLines(
        Path.of(ResumeITCase.class.getResource("/fixture/corpus.jsonl").toURI())));
    lines.add("{\"_id\": \"broken\", \"text\": ");
    Files.write(corpus, lines);
    Path root = work.resolve("failing");
    // Bad input over the limit: the commit refuses the build after every chunk was embedded.
    CliRun failed = CliRun.of("build", "--config", config(root, corpus, 0.0).toString());
    assertEquals(1, failed.exitCode(), failed.out());
    assertTrue(failed.err().contains("too much bad input"), failed.err());
    SnapshotStore store = new SnapshotStore(root);
    String failedId = store.allIds().get(0);
    assertFalse(store.hasManifest(failedId));
    assertEquals(StagingMarker.RESUMABLE, store.stagingMarker(failedId).orElseThrow().state());
    List<String> leftover;
    try (Stream<Path> s = Files.list(store.layout().snapshotDir(failedId))) {
      // (A local root's ".STAGING.lock", the compare-and-set's lock file of the marker, is no data.)
      leftover = s.map(x -> x.getFileName().toString()).filter(n -> !SnapshotLayout.STAGING_LOCKS.contains(n)).sorted().toList();
    }
    assertEquals(List.of("STAGING", "embeddings"), leftover, "only the vectors are kept");

    // gc within the window keeps them; the next build reuses every vector.
    assertEquals(0, CliRun.of("snapshots", "gc", "--keep", "1", "--snapshots", root.toString()).exitCode());
    assertTrue(Files.isDirectory(store.layout().snapshotDir(failedId)), "kept within gc's window");
    CliRun fixed = CliRun.of("build", "--config", config(root, corpus, 0.5).toString());
    assertEquals(0, fixed.exitCode(), fixed.err());
    Manifest m = store.manifest(store.currentId());
    assertEquals(0, m.embeddings().embedded(), "nothing embedded again: " + m.embeddings());
    assertEquals(m.counters().get(JobCounters.CHUNKS), m.embeddings().reused() + m.embeddings().deduplicated());
    assertEquals(List.of(failedId), m.embeddings().resumedFrom());

    // Past the window (here: a second) gc removes the failed build's parts.
    Thread.sleep(1_500); // the window under test is wall-clock time itself
    CliRun gc = CliRun.of("snapshots", "gc", "--keep", "1", "--stale-hours", "0.0003", "--snapshots", root.toString());
    assertEquals(0, gc.exitCode(), gc.err());
    assertFalse(Files.exists(store.layout().snapshotDir(failedId)), gc.out());
  }
}
