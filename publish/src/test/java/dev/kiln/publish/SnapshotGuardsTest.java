package dev.kiln.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.HeldRecord;
import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Held snapshots, the failure path after a compare-and-set, and build heartbeats. */
class SnapshotGuardsTest {
  @TempDir Path root;
  private int seq;

  private Manifest manifest(SnapshotPublisher p, String id) throws Exception {
    Path shard = p.store().layout().shardDir(id, 0);
    Files.createDirectories(shard);
    Files.writeString(shard.resolve("_0.cfs"), "data of " + id);
    return new Manifest(Manifest.FORMAT_VERSION, id, Instant.now().toString(), null,
        new Manifest.ModelInfo("m", 2, "mean", true, 16), new Manifest.ChunkerInfo("window", 10, 2, "m"),
        new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100), Map.of(),
        List.of(new Manifest.ShardEntry(0, "shard-00000", 1, 1, List.of(new Manifest.FileEntry("_0.cfs",
            Files.size(shard.resolve("_0.cfs")), Checksums.sha256(shard.resolve("_0.cfs")))))));
  }

  private String nextId() {
    return String.format("20261203T0000%02dZ-00000%d", seq, seq++ % 10);
  }

  @Test
  void aHeldSnapshotIsPublishedOnlyWithForceAndForceStillVerifiesEveryFile() throws Exception {
    SnapshotPublisher p = new SnapshotPublisher(new SnapshotStore(root));
    String base = nextId();
    p.writeManifest(manifest(p, base));
    p.publish(base, null, false);
    String held = nextId();
    p.writeHeldManifest(manifest(p, held), HeldRecord.RECALL_FLOOR, "shard 0 recall@10 0.5");

    SnapshotException e = assertThrows(SnapshotException.class, () -> p.publish(held, base, false));
    assertTrue(e.getMessage().contains("failed the recall_floor gate")
        && e.getMessage().contains("kiln snapshots publish " + held + " --force"), e.getMessage());
    assertEquals(base, p.store().currentId());

    Path file = p.store().layout().shardDir(held, 0).resolve("_0.cfs");
    String good = Files.readString(file);
    Files.writeString(file, good.replace('d', 'X'));
    e = assertThrows(SnapshotException.class, () -> p.publish(held, base, false, true));
    assertTrue(e.getMessage().contains("failed verification"), "--force skips the gate, not the checksums");
    assertEquals(base, p.store().currentId());

    Files.writeString(file, good);
    p.publish(held, base, false, true);
    assertEquals(held, p.store().currentId());
    assertTrue(p.store().held(held).isEmpty(), "accepted by hand: no longer held");
    assertTrue(p.store().verifiedRecord(held).isPresent(), "publish records its verification");
  }

  @Test
  void aFailedBuildNeverDiscardsTheSnapshotCurrentNames() throws Exception {
    SnapshotPublisher p = new SnapshotPublisher(new SnapshotStore(root));
    String a = nextId();
    p.writeManifest(manifest(p, a));
    p.publish(a, null, false);
    // E.g. the read-back after a successful compare-and-set failed: the build reports a failure, but
    // CURRENT names its snapshot, which must stay.
    assertFalse(p.discardUnpublished(a));
    assertEquals(a, p.store().currentId());
    assertEquals(List.of(), p.store().verify(p.store().manifest(a)));

    String b = nextId();
    p.writeManifest(manifest(p, b));
    assertTrue(p.discardUnpublished(b));
    assertFalse(Files.exists(p.store().layout().snapshotDir(b)));

    // CURRENT unreadable: it might name the snapshot, so keep it.
    String c = nextId();
    p.writeManifest(manifest(p, c));
    Files.writeString(p.store().layout().current(), "garbage\n");
    assertFalse(p.discardUnpublished(c));
    assertTrue(p.store().hasManifest(c));
  }

  @Test
  void aLiveBuildsHeartbeatKeepsGcAwayAndStopsWhenTheMarkerIsNotItsOwn() throws Exception {
    SnapshotStore store = new SnapshotStore(root);
    SnapshotPublisher p = new SnapshotPublisher(store);
    String id = nextId();
    // A build that started long ago on another host (so neither its pid nor its start can vouch for it).
    StagingMarker old = new StagingMarker(StagingMarker.BUILDING, "elsewhere", 1,
        Instant.now().minus(Duration.ofHours(30)).toString(), null, "other-host", "1234", null);
    p.writeMarker(id, old);
    SnapshotRetention gc = new SnapshotRetention(store);
    long stale = Duration.ofHours(1).toMillis();
    // Backdate the marker object itself, as an old write would be.
    Files.setLastModifiedTime(store.layout().snapshotDir(id).resolve("STAGING"),
        FileTime.from(Instant.now().minus(Duration.ofHours(30))));
    assertEquals(List.of(id), gc.plan(0, stale).orphans(), "no heartbeat: collectable");

    try (StagingHeartbeat h = StagingHeartbeat.start(store.storage(), id, old, Duration.ofMillis(200))) {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (store.stagingMarker(id).orElseThrow().heartbeat() == null) {
        assertTrue(System.nanoTime() < deadline, "the heartbeat never beat");
        Thread.onSpinWait();
      }
      assertEquals(List.of(id), gc.plan(0, stale).building(), "a fresh heartbeat: left alone");
      assertEquals(List.of(), gc.execute(gc.plan(0, stale), stale));
      assertTrue(Files.exists(store.layout().snapshotDir(id)));

      // gc (or anyone) replaced the marker: the heartbeat must not resurrect it. (A replacement written between
      // a beat's read and its write is covered by StagingHeartbeatTest: the beat's write is conditional.)
      String lastBeat = store.stagingMarker(id).orElseThrow().heartbeat();
      long beatDeadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (lastBeat.equals(store.stagingMarker(id).orElseThrow().heartbeat())) {
        assertTrue(System.nanoTime() < beatDeadline, "the heartbeat stopped beating");
        Thread.sleep(1); // polling for the next beat
      }
      StagingMarker deleting = StagingMarker.forThisProcess(StagingMarker.DELETING, null);
      p.writeMarker(id, deleting);
      long until = System.nanoTime() + Duration.ofMillis(1_000).toNanos(); // five beats
      while (System.nanoTime() < until) {
        assertEquals(StagingMarker.DELETING, store.stagingMarker(id).orElseThrow().state());
      }
    }
  }

  @Test
  void aBeatLandingAfterGcJudgedTheBuildAbandonedKeepsIt() throws Exception {
    // gc reads a stale marker and decides to collect the build; the build's heartbeat lands before gc marks it
    // deleting. gc's write is conditional on the marker it judged, so it loses, and the build's data stays.
    LocalSnapshotStorage local = new LocalSnapshotStorage(root);
    String id = nextId();
    String staging = SnapshotLayout.stagingKey(id);
    StagingMarker old = new StagingMarker(StagingMarker.BUILDING, "elsewhere", 1,
        Instant.now().minus(Duration.ofHours(30)).toString(), null, "other-host", "1234", null);
    local.write(staging, SnapshotStore.json().writeValueAsBytes(old));
    local.write(SnapshotLayout.snapshotKey(id) + "shard-00000/_0.cfs", new byte[] {1, 2, 3});
    Files.setLastModifiedTime(root.resolve(SnapshotLayout.SNAPSHOTS).resolve(id).resolve("STAGING"),
        FileTime.from(Instant.now().minus(Duration.ofHours(30))));
    boolean[] beat = new boolean[1];
    DelegatingStorage racing = new DelegatingStorage(local) {
      @Override
      public boolean compareAndSet(String key, byte[] expected, byte[] update) throws IOException {
        if (key.equals(staging) && !beat[0]) {
          delegate.write(staging, SnapshotStore.json().writeValueAsBytes(old.beat(Instant.now())));
          beat[0] = true;
        }
        return delegate.compareAndSet(key, expected, update);
      }
    };
    SnapshotStore store = new SnapshotStore(new SnapshotLayout(root), racing);
    SnapshotRetention gc = new SnapshotRetention(store);
    long stale = Duration.ofHours(1).toMillis();
    assertEquals(List.of(id), gc.plan(0, stale).orphans(), "stale when gc looked");
    assertEquals(List.of(), gc.execute(gc.plan(0, stale), stale), "the beat won: nothing removed");
    assertTrue(beat[0], "the beat raced gc's write");
    assertEquals(StagingMarker.BUILDING, store.stagingMarker(id).orElseThrow().state());
    assertTrue(local.exists(SnapshotLayout.snapshotKey(id) + "shard-00000/_0.cfs"), "the build's data is kept");
  }
}
