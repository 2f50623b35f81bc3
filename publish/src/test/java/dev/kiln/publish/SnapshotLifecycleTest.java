package dev.kiln.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compare-and-set publishing, rollback and retention on a local snapshots root. */
class SnapshotLifecycleTest {
  @TempDir Path root;
  private int seq;

  /** A complete snapshot with one small shard file; ids increase with each call. */
  private String snapshot(SnapshotPublisher publisher, String parent) throws Exception {
    String id = String.format("20261202T0000%02dZ-00000%d", seq, seq % 10);
    seq++;
    publisher.begin(id, parent);
    Path shard = publisher.store().layout().shardDir(id, 0);
    Files.createDirectories(shard);
    Files.writeString(shard.resolve("_0.cfs"), "data of " + id);
    Manifest m = new Manifest(Manifest.FORMAT_VERSION, id, Instant.now().toString(), parent,
        new Manifest.ModelInfo("m", 2, "mean", true, 16), new Manifest.ChunkerInfo("window", 10, 2, "m"),
        new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100), Map.of(),
        List.of(new Manifest.ShardEntry(0, "shard-00000", 1, 1, List.of(new Manifest.FileEntry("_0.cfs",
            Files.size(shard.resolve("_0.cfs")), Checksums.sha256(shard.resolve("_0.cfs")))))));
    assertTrue(Files.exists(publisher.store().layout().snapshotDir(id).resolve("STAGING")));
    publisher.writeManifest(m);
    assertFalse(Files.exists(publisher.store().layout().snapshotDir(id).resolve("STAGING")),
        "the manifest commits the snapshot; the staging marker goes");
    return id;
  }

  @Test
  void publishIsCompareAndSetOnCurrent() throws Exception {
    SnapshotPublisher p = new SnapshotPublisher(new SnapshotStore(root));
    String a = snapshot(p, null);
    p.publish(a, null, false);
    String b = snapshot(p, a);
    String c = snapshot(p, a);
    p.publish(b, a, false);
    // c started from a, but b was published meanwhile: c must not overwrite it.
    PublishConflictException e = assertThrows(PublishConflictException.class, () -> p.publish(c, a, false));
    assertTrue(e.getMessage().contains("CURRENT names " + b) && e.getMessage().contains("--force"), e.getMessage());
    assertEquals(b, p.store().currentId());
    p.publish(c, a, true);
    assertEquals(c, p.store().currentId());
  }

  @Test
  void aSnapshotThatFailsVerificationIsNeverPublished() throws Exception {
    SnapshotPublisher p = new SnapshotPublisher(new SnapshotStore(root));
    String a = snapshot(p, null);
    p.publish(a, null, false);
    String b = snapshot(p, a);
    Files.writeString(p.store().layout().shardDir(b, 0).resolve("_0.cfs"), "data of XXXXXXXXXXXXXXXXXXXXXXXX");
    SnapshotException e = assertThrows(SnapshotException.class, () -> p.publish(b, a, false));
    assertTrue(e.getMessage().contains("failed verification") && e.getMessage().contains("shard-00000/_0.cfs"),
        e.getMessage());
    assertEquals(a, p.store().currentId());
  }

  @Test
  void rollbackGoesToTheParentOrANamedSnapshot() throws Exception {
    SnapshotPublisher p = new SnapshotPublisher(new SnapshotStore(root));
    String a = snapshot(p, null);
    p.publish(a, null, false);
    assertThrows(SnapshotException.class, () -> p.rollback(null), "nothing before the first snapshot");
    String b = snapshot(p, a);
    p.publish(b, a, false);
    String c = snapshot(p, b);
    p.publish(c, b, false);
    assertEquals(b, p.rollback(null));
    assertEquals(b, p.store().currentId());
    assertEquals(c, p.rollback(c));
    assertThrows(SnapshotException.class, () -> p.rollback(c), "already published");
  }

  @Test
  void gcKeepsTheNewestThePublishedAndTheOneBeforeItAndRemovesDeadBuilds() throws Exception {
    SnapshotStore store = new SnapshotStore(root);
    SnapshotPublisher p = new SnapshotPublisher(store);
    String a = snapshot(p, null);
    p.publish(a, null, false);
    String b = snapshot(p, a);
    p.publish(b, a, false);
    String c = snapshot(p, b);
    String d = snapshot(p, b);
    // The published snapshot is b; its predecessor a. c and d were built but never published.
    String dead = "20261202T000099Z-dead00";
    // Written in this process space (same host id) by a process that is gone: dead at once.
    p.writeMarker(dead, new StagingMarker(StagingMarker.BUILDING, hostName(), deadPid(),
        Instant.now().toString(), b, StagingMarker.thisHostId(), "0011223344556677", Instant.now().toString()));
    Files.createDirectories(store.layout().shardDir(dead, 0));
    Files.writeString(store.layout().shardDir(dead, 0).resolve("_0.fdt"), "half");
    String running = "20261202T000098Z-a11be0";
    p.begin(running, b);

    SnapshotRetention gc = new SnapshotRetention(store);
    SnapshotRetention.Plan plan = gc.plan(1, 3_600_000);
    assertEquals(List.of(a, b, d), plan.kept());
    assertEquals(List.of(c), plan.expired());
    assertEquals(List.of(dead), plan.orphans());
    assertEquals(List.of(running), plan.building());
    gc.execute(plan);
    assertEquals(List.of(a, b, d), store.list());
    assertEquals(List.of(a, b, d, running), store.allIds());
    assertFalse(Files.exists(store.layout().snapshotDir(dead)));
    assertFalse(Files.exists(store.layout().snapshotDir(c)));
    for (String id : store.list()) {
      assertTrue(store.verify(store.manifest(id)).isEmpty(), id);
    }
    assertEquals(b, store.currentId());

    // keep 0 still never touches the published snapshot and its predecessor.
    gc.execute(gc.plan(0, 3_600_000));
    assertEquals(List.of(a, b), store.list());
  }

  @Test
  void aBuildMarkerOnAnotherHostExpiresOnlyAfterTheGracePeriod() {
    long now = System.currentTimeMillis();
    StagingMarker remote = new StagingMarker(StagingMarker.BUILDING, "some-other-host", 1,
        Instant.ofEpochMilli(now - 10_000).toString(), null);
    assertFalse(remote.abandoned(now, 60_000));
    assertTrue(remote.abandoned(now, 5_000));
    assertTrue(new StagingMarker(StagingMarker.DELETING, "h", 1, Instant.now().toString(), null).abandoned(now, 60_000));
  }

  private static String hostName() {
    return StagingMarker.forThisProcess(StagingMarker.BUILDING, null).host();
  }

  /** A pid that belongs to no running process: one of a process we started and waited for. */
  private static long deadPid() throws Exception {
    Process proc = new ProcessBuilder("true").start();
    proc.waitFor();
    return proc.pid();
  }
}
