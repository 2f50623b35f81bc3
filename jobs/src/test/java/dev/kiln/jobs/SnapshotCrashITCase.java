package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.KilnProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash safety with real processes: a {@code kiln build} JVM is SIGKILLed while embedding, while
 * writing shards, and between the manifest and {@code CURRENT}. After each kill {@code CURRENT} is
 * unchanged and every listed snapshot verifies; a rerun then succeeds and {@code gc} leaves no
 * unfinished data. A flipped byte in a published file is refused by {@code snapshots show} and the
 * searcher.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SnapshotCrashITCase {
  @TempDir static Path work;
  static Path root;
  static Path config;
  static String base;
  static final List<String> killed = new ArrayList<>();

  @BeforeAll
  static void publishABaseSnapshot() throws Exception {
    root = work.resolve("snapshots");
    Path corpus = work.resolve("corpus.jsonl");
    Path fixture = Path.of(SnapshotCrashITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    // Four documents: enough for two shards, few enough that each build embeds a handful of chunks.
    Files.write(corpus, Files.readAllLines(fixture).subList(0, 4));
    config = work.resolve("build.yaml");
    Files.writeString(config, String.join("\n",
        "corpus: [" + corpus + "]",
        "snapshots: " + root,
        "shards: 2",
        "parallelism: 2",
        "chunker: {size: 48, overlap: 8}",
        "embed: {batch-size: 2}",
        "index: {recall-probe-samples: 5}",
        // Each crash point is a stage of a build that writes everything: an incremental build of the
        // unchanged corpus would skip the stages the kills aim at.
        "incremental: off",
        ""));
    CliRun run = CliRun.of("build", "--config", config.toString());
    assertEquals(0, run.exitCode(), run.err());
    base = new SnapshotStore(root).currentId();
  }

  private static List<String> snapshotDirs() throws Exception {
    try (Stream<Path> s = Files.list(root.resolve("snapshots"))) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  /** Kills a build at {@code point} and checks the invariants; returns the killed build's snapshot id. */
  private static String killAt(String point) throws Exception {
    List<String> before = snapshotDirs();
    KilnProcess p = KilnProcess.start(work, "kill-" + point, point, List.of("build", "--config", config.toString()));
    p.awaitPause(120);
    assertEquals(137, p.kill9(), "SIGKILL");
    SnapshotStore store = new SnapshotStore(root);
    assertEquals(base, store.currentId(), "a killed build never moves CURRENT");
    for (String id : store.list()) {
      assertTrue(store.verify(store.manifest(id)).isEmpty(), "snapshot " + id + " still verifies");
    }
    List<String> after = new ArrayList<>(snapshotDirs());
    after.removeAll(before);
    assertEquals(1, after.size(), "the killed build left its snapshot directory: " + after);
    killed.add(after.get(0));
    return after.get(0);
  }

  @Test
  @Order(1)
  void killedWhileEmbeddingLeavesOnlyAStagingMarker() throws Exception {
    String id = killAt("embed");
    SnapshotStore store = new SnapshotStore(root);
    assertFalse(store.list().contains(id), "no manifest: invisible");
    assertTrue(store.stagingMarker(id).isPresent());
    try (Stream<Path> s = Files.list(store.layout().snapshotDir(id))) {
      // While embedding, only the staging marker, the corpus listing the client wrote before the job
      // and (partly written) stored vectors exist: no shard has been started and there is no manifest.
      List<String> left = s.map(p -> p.getFileName().toString()).sorted().toList();
      assertTrue(left.contains("STAGING"), left.toString());
      assertTrue(left.stream().allMatch(n -> n.equals("STAGING") || SnapshotLayout.STAGING_LOCKS.contains(n) || n.equals("embeddings")
          || n.equals(SnapshotLayout.CORPUS_FILES)), left.toString());
    }
  }

  @Test
  @Order(2)
  void killedWhileWritingShardsLeavesUnfinishedShards() throws Exception {
    String id = killAt("write");
    SnapshotStore store = new SnapshotStore(root);
    assertFalse(store.list().contains(id));
    assertTrue(store.stagingMarker(id).isPresent());
    assertTrue(Files.isDirectory(store.layout().snapshotDir(id).resolve("shard-00000"))
        || Files.isDirectory(store.layout().snapshotDir(id).resolve("shard-00001")), "a shard was being written");
  }

  @Test
  @Order(3)
  void killedBetweenManifestAndCurrentLeavesACompleteUnpublishedSnapshot() throws Exception {
    String id = killAt("before-current");
    SnapshotStore store = new SnapshotStore(root);
    assertTrue(store.list().contains(id), "the manifest committed it");
    assertFalse(store.stagingMarker(id).isPresent());
    assertEquals(base, store.currentId());
    store.open(id);
  }

  @Test
  @Order(4)
  void aRerunSucceedsAndGcLeavesNoOrphans() throws Exception {
    CliRun build = CliRun.of("build", "--config", config.toString());
    assertEquals(0, build.exitCode(), build.err());
    SnapshotStore store = new SnapshotStore(root);
    String rerun = store.currentId();
    assertNotEquals(base, rerun);
    assertEquals(base, store.manifest(rerun).parent());

    CliRun list = CliRun.of("snapshots", "list", "--json", "--snapshots", root.toString());
    assertEquals(0, list.exitCode(), list.err());
    JsonNode listed = new ObjectMapper().readTree(list.out());
    assertEquals(rerun, listed.get("current").asText());
    List<String> orphaned = new ArrayList<>();
    listed.get("snapshots").forEach(s -> {
      if (s.get("state").asText().equals("orphaned")) {
        orphaned.add(s.get("id").asText());
      }
    });
    assertEquals(killed.subList(0, 2), orphaned, "the builds killed before their manifest are orphans");

    CliRun gc = CliRun.of("snapshots", "gc", "--keep", "1", "--json", "--snapshots", root.toString());
    assertEquals(0, gc.exitCode(), gc.err());
    // Kept: the published rerun and the one before it (base); the complete-but-unpublished snapshot of
    // the third kill is older than the rerun and not protected; the two orphans are gone.
    assertEquals(List.of(base, rerun), store.list());
    assertEquals(List.of(base, rerun), snapshotDirs(), "no staging data left: " + gc.out());
    for (String id : store.list()) {
      store.open(id);
    }
    assertEquals(rerun, store.currentId());

    assertEquals(0, CliRun.of("snapshots", "rollback", "--snapshots", root.toString()).exitCode());
    assertEquals(base, store.currentId());
    assertEquals(0, CliRun.of("snapshots", "publish", rerun, "--snapshots", root.toString()).exitCode());
    assertEquals(rerun, store.currentId());
  }

  @Test
  @Order(5)
  void aFlippedByteIsRefusedByShowAndVerifyAndThenByTheSearcher() throws Exception {
    SnapshotStore store = new SnapshotStore(root);
    String id = store.currentId();
    Manifest m = store.manifest(id);
    Manifest.ShardEntry shard = m.shards().stream().filter(s -> s.chunks() > 0).findFirst().orElseThrow();
    Manifest.FileEntry file = shard.files().stream().max((a, b) -> Long.compare(a.size(), b.size())).orElseThrow();
    Path target = store.layout().snapshotDir(id).resolve(shard.directory()).resolve(file.name());
    byte[] bytes = Files.readAllBytes(target);
    bytes[bytes.length / 2] ^= 0x01;
    Files.write(target, bytes, StandardOpenOption.TRUNCATE_EXISTING);

    CliRun show = CliRun.of("snapshots", "show", id, "--snapshots", root.toString());
    assertEquals(1, show.exitCode());
    assertTrue(show.err().contains("failed verification") && show.err().contains(shard.directory() + "/" + file.name())
        && show.err().contains("sha256"), show.err());
    // Publishing verified every byte and recorded it (VERIFIED): the searcher checks sizes, not bytes
    // (Lucene itself checks some small files' footers at open), until 'snapshots verify' re-reads
    // everything and drops the record.
    CliRun verify = CliRun.of("snapshots", "verify", id, "--snapshots", root.toString());
    assertEquals(1, verify.exitCode(), verify.out() + verify.err());
    assertTrue(verify.out().contains(shard.directory() + "/" + file.name() + ": sha256"), verify.out());
    SnapshotException e = assertThrows(SnapshotException.class, () -> Searcher.open(root).close());
    assertTrue(e.getMessage().contains(file.name()), e.getMessage());
    CliRun search = CliRun.of("search", "--snapshots", root.toString(), "honey");
    assertEquals(1, search.exitCode());
    assertTrue(search.err().contains("failed verification"), search.err());
  }
}
