package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotStoreTest {
  @TempDir Path root;

  private Manifest write(String id, byte[] content) throws Exception {
    SnapshotLayout layout = new SnapshotLayout(root);
    Path shard = layout.shardDir(id, 0);
    Files.createDirectories(shard);
    Files.write(shard.resolve("_0.cfs"), content);
    Manifest m = new Manifest(Manifest.FORMAT_VERSION, id, "2026-12-02T00:00:00Z", null,
        new Manifest.ModelInfo("m", 3, "mean", true, 16),
        new Manifest.ChunkerInfo("window", 10, 2, "m"),
        new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100),
        Map.of("chunks", 1L),
        List.of(new Manifest.ShardEntry(0, SnapshotLayout.shardDirName(0), 1, 1,
            List.of(new Manifest.FileEntry("_0.cfs", content.length, Checksums.sha256(shard.resolve("_0.cfs")))))));
    SnapshotStore.json().writeValue(layout.manifest(id).toFile(), m);
    return m;
  }

  @Test
  void verifiesSizesAndChecksums() throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    write(id, new byte[] {1, 2, 3, 4});
    SnapshotStore store = new SnapshotStore(root);
    assertEquals(id, store.open(id).id());
    assertEquals(List.of(id), store.list());

    Path file = store.layout().shardDir(id, 0).resolve("_0.cfs");
    Files.write(file, new byte[] {1, 2, 9, 4});
    SnapshotException e = assertThrows(SnapshotException.class, () -> store.open(id));
    assertTrue(e.getMessage().contains("sha256"), e.getMessage());

    Files.write(file, new byte[] {1, 2});
    assertTrue(store.verify(store.manifest(id)).get(0).contains("size 2"));
    Files.delete(file);
    assertTrue(store.verify(store.manifest(id)).get(0).contains("missing"));
  }

  @Test
  void currentMustNameASnapshot() throws Exception {
    SnapshotStore store = new SnapshotStore(root);
    assertTrue(assertThrows(SnapshotException.class, store::currentId).getMessage().contains("no published snapshot"));
    Files.writeString(root.resolve("CURRENT"), "../../etc\n");
    assertThrows(SnapshotException.class, store::currentId);
  }

  @Test
  void idsSortByCreationAndAreValidated() {
    String id = SnapshotLayout.newSnapshotId();
    assertTrue(SnapshotLayout.isSnapshotId(id), id);
    assertTrue(!SnapshotLayout.isSnapshotId("../x"));
    assertThrows(IllegalArgumentException.class, () -> new SnapshotLayout(root).snapshotDir("../x"));
  }
}
