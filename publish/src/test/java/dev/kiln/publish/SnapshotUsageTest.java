package dev.kiln.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.ObjectStoreView;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.StagingMarker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kiln snapshots du}: bytes per snapshot (own, referenced, unique), the root's, and what gc would free. */
class SnapshotUsageTest {
  @TempDir Path dir;

  private void verifies(SnapshotStore store) {
    for (String id : store.list()) {
      assertEquals(List.of(), store.verify(store.manifest(id)), id);
    }
  }

  @Test
  void duCountsEachStoredFileOnceAndWhatGcWouldFree() throws Exception {
    SnapshotStore store = new SnapshotStore(new SnapshotLayout(dir), new ObjectStoreView(dir));
    SharedSnapshots s = new SharedSnapshots(store, new Random(7), "000010");
    SnapshotPublisher p = s.publisher();
    String a = s.complete(null, 0);
    p.publish(a, null, false);
    String b = s.complete(a, 1.0);
    p.publish(b, a, false);
    String c = s.complete(b, 1.0);
    p.publish(c, b, false);
    SharedSnapshots.Build dead = s.begin(c);
    dead.write(0);
    dead.die();

    SnapshotUsage.Report r = SnapshotUsage.measure(store, 1, 3_600_000);
    long[] sizes = new long[3];
    List<String> ids = List.of(a, b, c);
    for (int i = 0; i < 3; i++) {
      Manifest m = store.manifest(ids.get(i));
      sizes[i] = RootManifests.files(m).stream().filter(f -> !f.entry().referenced(m.id()))
          .mapToLong(f -> f.entry().size()).sum();
    }
    assertEquals(List.of(a, b, c), r.snapshots().stream().map(SnapshotUsage.Snapshot::id).toList());
    for (int i = 0; i < 3; i++) {
      SnapshotUsage.Snapshot row = r.snapshots().get(i);
      assertEquals(sizes[i], row.own(), row.id());
      assertEquals(row.bytes(), row.own() + row.referenced());
    }
    assertEquals(0, r.snapshots().get(0).referenced());
    assertEquals(sizes[0] + sizes[1] + sizes[2], r.listed(), "each file once, however many list it");
    assertEquals(List.of(dead.id()), r.unfinished().stream().map(SnapshotUsage.Unfinished::id).toList());
    long deadBytes = r.unfinished().get(0).bytes();
    assertTrue(deadBytes > 0);
    assertEquals(r.listed() + r.records() + deadBytes, r.stored());
    assertEquals(r.snapshots().stream().mapToLong(SnapshotUsage.Snapshot::records).sum(), r.records());
    assertEquals(List.of(a), r.expired());

    // What du says gc frees is what gc frees.
    long before = totalBytes(store);
    new SnapshotRetention(store).run(new SnapshotRetention(store).plan(1, 3_600_000), 3_600_000);
    SnapshotUsage.Report after = SnapshotUsage.measure(store, 1, 3_600_000);
    assertEquals(StagingMarker.RETIRED, store.stagingMarker(a).orElseThrow().state(), "b and c reference a's files");
    assertEquals(r.stored() - r.freed() + store.storage().size(SnapshotLayout.stagingKey(a)), after.stored(),
        "all but the marker gc wrote on the directory it retired");
    assertTrue(totalBytes(store) < before);
    verifies(store);
  }

  private long totalBytes(SnapshotStore store) throws IOException {
    try (Stream<Path> files = Files.walk(store.layout().snapshotsDir())) {
      return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    }
  }

  @Test
  void onALocalRootTheCountsAreThoseOfTheInodesHardLinksShare() throws Exception {
    SnapshotStore store = new SnapshotStore(dir);
    SharedSnapshots s = new SharedSnapshots(store, new Random(8), "000011");
    SnapshotPublisher p = s.publisher();
    String a = s.complete(null, 0);
    p.publish(a, null, false);
    String b = s.complete(a, 0.6);
    p.publish(b, a, false);
    String c = s.complete(b, 0.6);
    p.publish(c, b, false);

    SnapshotUsage.Report r = SnapshotUsage.measure(store, 1, 3_600_000);
    assertEquals(inodeBytes(), r.stored(), "each hard-linked file once");
    assertEquals(List.of(a), r.expired());
    assertEquals(r.snapshots().get(0).unique(), r.freed(), "removing a frees what only a lists");
    new SnapshotRetention(store).run(new SnapshotRetention(store).plan(1, 3_600_000), 3_600_000);
    assertEquals(r.stored() - r.freed(), inodeBytes());
    assertEquals(r.stored() - r.freed(), SnapshotUsage.measure(store, 1, 3_600_000).stored());
    verifies(store);
  }

  /** Bytes of the distinct files (inodes) under {@code snapshots/}. */
  private long inodeBytes() throws IOException {
    try (Stream<Path> files = Files.walk(dir.resolve(SnapshotLayout.SNAPSHOTS))) {
      return files.filter(Files::isRegularFile).map(f -> {
        try {
          return Files.readAttributes(f, BasicFileAttributes.class);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).collect(Collectors.toMap(BasicFileAttributes::fileKey, BasicFileAttributes::size, (x, y) -> x)).values()
          .stream().mapToLong(Long::longValue).sum();
    }
  }
}
