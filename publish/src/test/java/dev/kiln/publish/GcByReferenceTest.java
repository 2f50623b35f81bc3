package dev.kiln.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.ObjectStoreView;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gc by reference (manifest format 2): a removed snapshot's files that later snapshots reference stay
 * (the directory is {@code retired}) until nothing references them; the base of a running build is
 * kept; a build whose base is gone stops before writing. Object-store semantics through
 * {@link ObjectStoreView}; a local root, whose snapshots hold links, loses nothing either.
 */
class GcByReferenceTest {
  @TempDir Path dir;

  private SnapshotStore objectStore() {
    return new SnapshotStore(new SnapshotLayout(dir), new ObjectStoreView(dir));
  }

  private static void assertEveryCompleteSnapshotVerifies(SnapshotStore store) {
    for (String id : store.list()) {
      assertEquals(List.of(), store.verify(store.manifest(id)), "snapshot " + id + " verifies, every byte hashed");
    }
  }

  /** Every file under {@code prefix} (a directory key), as keys. */
  private List<String> objects(SnapshotStorage storage, String prefix) throws IOException {
    List<String> out = new ArrayList<>();
    for (String name : storage.list(prefix)) {
      if (Files.isRegularFile(dir.resolve(prefix + name))) {
        out.add(prefix + name);
      } else {
        out.addAll(objects(storage, prefix + name + "/"));
      }
    }
    return out;
  }

  private static List<String> referencedFrom(Manifest m, String owner) {
    return RootManifests.files(m).stream().filter(f -> owner.equals(f.entry().snapshot()))
        .map(f -> f.ownerKey(m.id())).sorted().toList();
  }

  @Test
  void aRemovedSnapshotKeepsOnlyTheFilesLaterSnapshotsReferenceUntilNoneDoes() throws Exception {
    SnapshotStore store = objectStore();
    SharedSnapshots s = new SharedSnapshots(store, new Random(1), "00000a");
    SnapshotPublisher p = s.publisher();
    String a = s.complete(null, 0);
    p.publish(a, null, false);
    String b = s.complete(a, 0.7);
    p.publish(b, a, false);
    String c = s.complete(b, 0.7);
    p.publish(c, b, false);
    List<String> shared = new ArrayList<>(referencedFrom(store.manifest(b), a));
    referencedFrom(store.manifest(c), a).forEach(k -> {
      if (!shared.contains(k)) {
        shared.add(k);
      }
    });
    assertFalse(shared.isEmpty(), "b or c references some of a's files");

    SnapshotRetention gc = new SnapshotRetention(store);
    SnapshotRetention.Plan plan = gc.plan(1, 3_600_000);
    assertEquals(List.of(a), plan.expired());
    SnapshotRetention.Outcome done = gc.run(plan, 3_600_000);
    assertEquals(List.of(a), done.removed());
    assertEquals(List.of(a), done.retired());
    assertFalse(store.hasManifest(a));
    assertEquals(StagingMarker.RETIRED, store.stagingMarker(a).orElseThrow().state());
    List<String> left = objects(store.storage(), SnapshotLayout.snapshotKey(a));
    left.remove(SnapshotLayout.stagingKey(a));
    assertEquals(shared.stream().sorted().toList(), left.stream().sorted().toList(),
        "only the files b and c reference are left of a");
    assertEveryCompleteSnapshotVerifies(store);
    assertEquals(List.of(a), gc.plan(1, 3_600_000).retired(), "a later gc knows the directory");

    // Two full builds later b and c expire; then nothing references a's files any more.
    String d = s.complete(null, 0);
    p.publish(d, c, false);
    String e = s.complete(d, 0.5);
    p.publish(e, d, false);
    done = gc.run(gc.plan(1, 3_600_000), 3_600_000);
    assertEquals(List.of(b, c), done.removed());
    assertEquals(List.of(), done.retired());
    assertEquals(List.of(d, e), store.allIds(), "a, b and c are gone, files and markers");
    assertEveryCompleteSnapshotVerifies(store);
  }

  @Test
  void theBaseOfARunningBuildIsKeptEvenWhenNothingElseWouldKeepIt() throws Exception {
    SnapshotStore store = objectStore();
    SharedSnapshots s = new SharedSnapshots(store, new Random(2), "00000b");
    SnapshotPublisher p = s.publisher();
    String a = s.complete(null, 0);
    p.publish(a, null, false);
    String b = s.complete(a, 0.5);
    p.publish(b, a, false);
    SharedSnapshots.Build running = s.begin(b); // a live build in this very process continues b
    assertEquals(a, p.rollback(a)); // b is now neither published nor the one before

    SnapshotRetention gc = new SnapshotRetention(store);
    SnapshotRetention.Plan plan = gc.plan(0, 3_600_000);
    assertEquals(List.of(a, b), plan.kept());
    assertEquals(List.of(b), plan.continued());
    assertEquals(List.of(running.id()), plan.building());
    // Even a plan made before the build began is re-judged under the lock.
    SnapshotRetention.Plan stale = new SnapshotRetention.Plan(List.of(a), List.of(b), List.of(), List.of(), List.of(),
        List.of());
    assertEquals(List.of(), gc.execute(stale, 3_600_000));
    assertTrue(store.hasManifest(b));

    String n = running.write(0.8).commit();
    assertEveryCompleteSnapshotVerifies(store);
    // Finished, the build no longer holds b: under --keep 0 both expire (a is published).
    SnapshotRetention.Outcome done = gc.run(gc.plan(0, 3_600_000), 3_600_000);
    assertEquals(List.of(b, n), done.removed());
    assertEquals(List.of(a), store.allIds());
    assertEveryCompleteSnapshotVerifies(store);
  }

  @Test
  void aBuildWhoseBaseGcRemovedStopsBeforeWritingAnything() throws Exception {
    SnapshotStore store = objectStore();
    SharedSnapshots s = new SharedSnapshots(store, new Random(3), "00000c");
    SnapshotPublisher p = s.publisher();
    String a = s.complete(null, 0);
    p.publish(a, null, false);
    String b = s.complete(a, 0.5);
    p.publish(b, a, false);
    p.rollback(a);
    new SnapshotRetention(store).execute(new SnapshotRetention(store).plan(0, 3_600_000));
    assertFalse(store.hasManifest(b));

    List<String> before = store.allIds();
    SnapshotException e = assertThrows(SnapshotException.class, () -> s.begin(b));
    assertTrue(e.getMessage().contains("snapshot " + b + ", which this build continues, was removed")
        && e.getMessage().contains("nothing was written"), e.getMessage());
    assertEquals(before, store.allIds(), "the marker it wrote is gone again");
  }

  @Test
  void aGcKilledAfterDeletingAManifestLeavesDataTheNextGcSweepsByReference() throws Exception {
    SnapshotStore store = objectStore();
    SharedSnapshots s = new SharedSnapshots(store, new Random(4), "00000d");
    SnapshotPublisher p = s.publisher();
    String a = s.complete(null, 0);
    String b = s.complete(a, 1.0);
    p.publish(b, null, false);
    // What a gc killed after its lock leaves: a 'deleting' marker, no manifest, every file.
    p.writeMarker(a, StagingMarker.forThisProcess(StagingMarker.DELETING, null));
    store.storage().delete(SnapshotLayout.manifestKey(a));

    SnapshotRetention gc = new SnapshotRetention(store);
    SnapshotRetention.Plan plan = gc.plan(5, 3_600_000);
    assertEquals(List.of(a), plan.orphans());
    SnapshotRetention.Outcome done = gc.run(plan, 3_600_000);
    assertEquals(List.of(a), done.retired());
    assertEveryCompleteSnapshotVerifies(store);
    assertFalse(objects(store.storage(), SnapshotLayout.snapshotKey(a) + SnapshotLayout.EMBEDDINGS + "/").stream()
        .anyMatch(k -> k.endsWith(".parquet")), "a's own stored vectors, which nothing references, are gone");
  }

  @Test
  void aFailedBuildsDiscardKeepsWhatOthersReference() throws Exception {
    SnapshotStore store = objectStore();
    SharedSnapshots s = new SharedSnapshots(store, new Random(5), "00000e");
    SnapshotPublisher p = s.publisher();
    String a = s.complete(null, 0);
    p.publish(a, null, false);
    String b = s.complete(a, 0.5);
    String c = s.complete(b, 1.0); // references every shard file b has, including b's own
    p.publish(c, a, true);
    assertTrue(p.discardUnpublished(b));
    assertFalse(store.hasManifest(b));
    assertEquals(StagingMarker.RETIRED, store.stagingMarker(b).orElseThrow().state());
    assertEveryCompleteSnapshotVerifies(store);
  }

  @Test
  void onALocalRootEachSnapshotHoldsLinksSoARemovedOneGoesWhole() throws Exception {
    SnapshotStore store = new SnapshotStore(dir);
    SharedSnapshots s = new SharedSnapshots(store, new Random(6), "00000f");
    SnapshotPublisher p = s.publisher();
    String a = s.complete(null, 0);
    p.publish(a, null, false);
    String b = s.complete(a, 1.0);
    p.publish(b, a, false);
    String c = s.complete(b, 1.0);
    p.publish(c, b, false);
    assertFalse(referencedFrom(store.manifest(c), a).isEmpty());
    SnapshotRetention gc = new SnapshotRetention(store);
    SnapshotRetention.Outcome done = gc.run(gc.plan(1, 3_600_000), 3_600_000);
    assertEquals(List.of(a), done.removed());
    assertEquals(List.of(), done.retired());
    assertFalse(Files.exists(store.layout().snapshotDir(a)));
    assertEveryCompleteSnapshotVerifies(store);
  }
}
