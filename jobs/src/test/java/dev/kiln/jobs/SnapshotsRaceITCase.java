package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.HeldRecord;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.CliRun;
import dev.kiln.testing.KilnProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln snapshots gc}, {@code publish} and {@code verify} as real processes on one local root:
 * gc decides and deletes under the lock publish holds, so a snapshot published while gc runs is never
 * deleted under {@code CURRENT}.
 */
class SnapshotsRaceITCase {
  @TempDir Path work;

  private static String snapshot(SnapshotPublisher p, String id, String parent) throws Exception {
    Path shard = p.store().layout().shardDir(id, 0);
    Files.createDirectories(shard);
    Files.writeString(shard.resolve("_0.cfs"), "data of " + id);
    p.writeManifest(new Manifest(Manifest.FORMAT_VERSION, id, Instant.now().toString(), parent,
        new Manifest.ModelInfo("m", 2, "mean", true, 16), new Manifest.ChunkerInfo("window", 10, 2, "m"),
        new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100), Map.of(),
        List.of(new Manifest.ShardEntry(0, "shard-00000", 1, 1, List.of(new Manifest.FileEntry("_0.cfs",
            Files.size(shard.resolve("_0.cfs")), Checksums.sha256(shard.resolve("_0.cfs"))))))));
    return id;
  }

  @Test
  void aSnapshotPublishedWhileGcRunsIsNeverDeletedUnderCurrent() throws Exception {
    Path root = work.resolve("snapshots");
    SnapshotStore store = new SnapshotStore(root);
    SnapshotPublisher p = new SnapshotPublisher(store);
    String a = snapshot(p, "20261203T000001Z-00000a", null);
    String b = snapshot(p, "20261203T000002Z-00000b", a);
    String c = snapshot(p, "20261203T000000Z-00000c", null); // older than both: expired under --keep 0
    p.publish(a, null, false);
    p.publish(b, a, false);

    // gc decides to remove c and pauses at the deletion, holding the lock as it does in real life.
    KilnProcess gc = KilnProcess.start(work, "gc", "gc-remove", true,
        List.of("snapshots", "gc", "--keep", "0", "--snapshots", root.toString()));
    gc.awaitPause(120);
    // Meanwhile an operator publishes c. Before the fix it published at once, and gc then deleted it.
    KilnProcess publish = KilnProcess.start(work, "publish", null,
        List.of("snapshots", "publish", c, "--snapshots", root.toString()));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!publish.exited() && !publish.log().contains("waiting for the lock")) {
      assertTrue(System.nanoTime() < deadline, "publish neither finished nor waited:\n" + publish.log());
      Thread.sleep(50); // polling the log, leaving the cores to the processes under test
    }
    gc.resume();
    assertEquals(0, gc.waitFor(120), gc.log());
    int published = publish.waitFor(120);

    String current = store.currentId();
    assertEquals(List.of(), store.verify(store.manifest(current)), "CURRENT names a whole snapshot");
    assertEquals(1, published, "publish must lose: gc removed c under the lock first\n" + publish.log());
    assertTrue(publish.log().contains("removed") || publish.log().contains("no manifest"), publish.log());
    assertEquals(b, current);
    assertFalse(store.hasManifest(c));
  }

  @Test
  void verifyReReadsEveryByteAndPublishForceTakesAHeldSnapshot() throws Exception {
    Path root = work.resolve("snapshots");
    SnapshotStore store = new SnapshotStore(root);
    SnapshotPublisher p = new SnapshotPublisher(store);
    String a = snapshot(p, "20261203T000001Z-00000a", null);
    p.publish(a, null, false);
    CliRun ok = CliRun.of("snapshots", "verify", "--snapshots", root.toString());
    assertEquals(0, ok.exitCode(), ok.err());
    assertTrue(ok.out().contains("snapshot " + a + " verified: 1 files"), ok.out());

    Path file = store.layout().shardDir(a, 0).resolve("_0.cfs");
    Files.writeString(file, Files.readString(file).replace('d', 'X')); // same size
    CliRun bad = CliRun.of("snapshots", "verify", a, "--snapshots", root.toString());
    assertEquals(1, bad.exitCode(), bad.out() + bad.err());
    assertTrue(bad.out().contains("shard-00000/_0.cfs: sha256"), bad.out());
    assertTrue(store.verifiedRecord(a).isEmpty(), "a failed verify drops the record searchers rely on");
    CliRun show = CliRun.of("snapshots", "show", a, "--snapshots", root.toString());
    assertEquals(1, show.exitCode(), "show still verifies every byte");

    String held = "20261203T000003Z-00000d";
    Path shard = store.layout().shardDir(held, 0);
    Files.createDirectories(shard);
    Files.writeString(shard.resolve("_0.cfs"), "held data");
    p.writeHeldManifest(new Manifest(Manifest.FORMAT_VERSION, held, Instant.now().toString(), a,
        new Manifest.ModelInfo("m", 2, "mean", true, 16), new Manifest.ChunkerInfo("window", 10, 2, "m"),
        new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100), Map.of(),
        List.of(new Manifest.ShardEntry(0, "shard-00000", 1, 1, List.of(new Manifest.FileEntry("_0.cfs", 9,
            Checksums.sha256(shard.resolve("_0.cfs"))))))), HeldRecord.RECALL_FLOOR, "recall 0.5 below 0.9");
    CliRun refused = CliRun.of("snapshots", "publish", held, "--snapshots", root.toString());
    assertEquals(1, refused.exitCode());
    assertTrue(refused.err().contains("kiln snapshots publish " + held + " --force"), refused.err());
    CliRun list = CliRun.of("snapshots", "list", "--snapshots", root.toString());
    assertTrue(list.out().lines().anyMatch(l -> l.startsWith(held) && l.contains("held")), list.out());
    CliRun forced = CliRun.of("snapshots", "publish", held, "--force", "--snapshots", root.toString());
    assertEquals(0, forced.exitCode(), forced.err());
    assertEquals(held, store.currentId());
  }
}
