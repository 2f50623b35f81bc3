package dev.kiln.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotPublisherTest {
  @TempDir Path root;

  /** A manifest of one shard holding one small file (written here). */
  private Manifest manifest(String id) throws Exception {
    Path shard = new SnapshotLayout(root).shardDir(id, 0);
    Files.createDirectories(shard);
    Files.writeString(shard.resolve("_0.cfs"), "data");
    return new Manifest(Manifest.FORMAT_VERSION, id, "2026-12-02T00:00:00Z", null,
        new Manifest.ModelInfo("m", 2, "mean", true, 16), new Manifest.ChunkerInfo("window", 10, 2, "m"),
        new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100), Map.of(),
        List.of(new Manifest.ShardEntry(0, "shard-00000", 1, 1, List.of(new Manifest.FileEntry("_0.cfs", 4,
            Checksums.sha256(shard.resolve("_0.cfs")))))));
  }

  @Test
  void manifestFirstThenCurrent() throws Exception {
    SnapshotLayout layout = new SnapshotLayout(root);
    SnapshotPublisher publisher = new SnapshotPublisher(layout);
    String a = SnapshotLayout.newSnapshotId();
    assertThrows(SnapshotException.class, () -> publisher.publish(a), "no manifest, no publish");
    assertFalse(Files.exists(layout.current()));

    publisher.writeManifest(manifest(a));
    assertFalse(Files.exists(layout.current()), "writing a manifest publishes nothing");
    publisher.publish(a);
    assertEquals(a, new SnapshotStore(root).currentId());

    String b = SnapshotLayout.newSnapshotId();
    publisher.writeManifest(manifest(b));
    publisher.publish(b);
    assertEquals(b, new SnapshotStore(root).currentId());
    assertEquals(manifest(b), new SnapshotStore(root).manifest(b));
    try (var files = Files.list(root)) {
      // .CURRENT.lock is the compare-and-set lock file: persistent by design, never a temporary.
      assertEquals(List.of(".CURRENT.lock", "CURRENT", "snapshots"),
          files.map(p -> p.getFileName().toString()).sorted().toList(), "no temporary files are left behind");
    }
  }
}
