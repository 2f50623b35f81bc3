package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Format version 2 ({@code src/test/resources/golden/format-v2/manifest-incremental.json}): an
 * incremental build's manifest whose unchanged segment files reference the snapshot that wrote them
 * ({@code "snapshot"}), beside the files it wrote itself. The reader must read it, resolve each file
 * under its owner, write it back unchanged, and refuse any reference that is not another snapshot of
 * the same root.
 */
class ManifestFormatV2Test {
  static final String ID = "20261204T020000Z-5e1f0a";
  static final String PARENT = "20261203T172758Z-9f64fe";

  @TempDir Path root;

  static byte[] golden() throws IOException {
    try (InputStream in = ManifestFormatV2Test.class.getResourceAsStream("/golden/format-v2/manifest-incremental.json")) {
      assertNotNull(in, "missing golden file");
      return in.readAllBytes();
    }
  }

  private Manifest read(byte[] bytes) throws IOException {
    SnapshotLayout layout = new SnapshotLayout(root);
    Files.createDirectories(layout.manifest(ID).getParent());
    Files.write(layout.manifest(ID), bytes);
    return new SnapshotStore(root).manifest(ID);
  }

  @Test
  void readsReferencesAndResolvesEachFileUnderTheSnapshotThatHoldsIt() throws IOException {
    Manifest m = read(golden());
    assertEquals(2, m.formatVersion());
    assertEquals(PARENT, m.parent());
    Manifest.ShardEntry shard = m.shards().get(0);
    Manifest.FileEntry cfs = shard.files().stream().filter(f -> f.name().equals("_0.cfs")).findFirst().orElseThrow();
    Manifest.FileEntry liv = shard.files().stream().filter(f -> f.name().equals("_0_1.liv")).findFirst().orElseThrow();
    assertEquals(PARENT, cfs.snapshot());
    assertTrue(cfs.referenced(ID));
    assertEquals(PARENT, cfs.owner(ID));
    assertNull(liv.snapshot());
    assertFalse(liv.referenced(ID));
    assertEquals("snapshots/" + PARENT + "/shard-00000/_0.cfs", SnapshotLayout.fileKey(ID, shard.directory(), cfs));
    assertEquals("snapshots/" + ID + "/shard-00000/_0_1.liv", SnapshotLayout.fileKey(ID, shard.directory(), liv));
    // A later snapshot sharing the file references its owner, never this snapshot: no chains.
    assertEquals(PARENT, cfs.sharedFrom(ID).snapshot());
    assertEquals(ID, liv.sharedFrom(ID).snapshot());
    // On a local root every snapshot directory holds a link of what it references: read there.
    assertEquals("snapshots/" + ID + "/shard-00000/_0.cfs",
        new LocalSnapshotStorage(root).fileKey(ID, shard.directory(), cfs));
    assertEquals("snapshots/" + PARENT + "/shard-00000/_0.cfs",
        new ObjectStoreView(root).fileKey(ID, shard.directory(), cfs));
  }

  @Test
  void writesTheManifestBackFieldForField() throws IOException {
    Manifest m = read(golden());
    JsonNode expected = SnapshotStore.json().readTree(golden());
    JsonNode written = SnapshotStore.json().readTree(SnapshotStore.json().writeValueAsBytes(m));
    assertEquals(expected, written);
    // An own file is written without the key, as version 1 wrote it.
    assertFalse(written.get("shards").get(0).get("files").get(0).has("snapshot")
        && written.get("shards").get(0).get("files").get(0).get("snapshot").isNull());
  }

  /** The golden manifest with shard 0's first file's {@code snapshot} set to {@code value}. */
  private static byte[] withReference(String value, int formatVersion) throws IOException {
    ObjectNode tree = (ObjectNode) SnapshotStore.json().readTree(golden());
    tree.put("format_version", formatVersion);
    ObjectNode file = (ObjectNode) tree.get("shards").get(0).get("files").get(0);
    file.put("snapshot", value);
    return SnapshotStore.json().writeValueAsBytes(tree);
  }

  @Test
  void refusesAReferenceThatIsNotAnotherSnapshotOfThisRoot() throws IOException {
    for (String hostile : List.of("../../../etc", "s3://other-bucket/snapshots/" + PARENT, PARENT + "/../x",
        "/" + PARENT, PARENT + "\u0000", "", ID)) {
      SnapshotException e = assertThrows(SnapshotException.class, () -> read(withReference(hostile, 2)),
          "reference '" + hostile + "' must be refused");
      assertTrue(e.getMessage().contains("shard-00000/_0.cfe"), e.getMessage());
    }
    SnapshotException e = assertThrows(SnapshotException.class, () -> read(withReference(PARENT, 1)));
    assertTrue(e.getMessage().contains("format version 1 does not allow"), e.getMessage());
  }

  @Test
  void refusesAManifestOfANewerFormatThanThisReaderKnows() throws IOException {
    ObjectNode tree = (ObjectNode) SnapshotStore.json().readTree(golden());
    tree.put("format_version", Manifest.FORMAT_VERSION + 1);
    SnapshotException e = assertThrows(SnapshotException.class,
        () -> read(SnapshotStore.json().writeValueAsBytes(tree)));
    assertTrue(e.getMessage().contains("upgrade Kiln"), e.getMessage());
  }

  /** Writes {@code bytes} at {@code key} under the root. */
  private void put(String key, String bytes) throws IOException {
    Path p = root.resolve(key);
    Files.createDirectories(p.getParent());
    Files.writeString(p, bytes, StandardCharsets.UTF_8);
  }

  private static Manifest twoSnapshots(Manifest golden, String cfsSha, String ownSha) {
    Manifest.ShardEntry s = golden.shards().get(0);
    List<Manifest.FileEntry> files = List.of(new Manifest.FileEntry("_0.cfs", 5, cfsSha, PARENT),
        new Manifest.FileEntry("segments_2", 3, ownSha));
    return new Manifest(2, ID, golden.created(), PARENT, golden.model(), golden.chunker(), golden.index(),
        golden.counters(), List.of(new Manifest.ShardEntry(0, s.directory(), 1, 1, files)));
  }

  @Test
  void verificationOnAnObjectStoreReadsReferencedFilesUnderTheirOwnerAndNamesWhatIsWrong() throws IOException {
    Manifest m = twoSnapshots(read(golden()), Checksums.sha256("cfs!!".getBytes(StandardCharsets.UTF_8)),
        Checksums.sha256("seg".getBytes(StandardCharsets.UTF_8)));
    put("snapshots/" + PARENT + "/shard-00000/_0.cfs", "cfs!!");
    put("snapshots/" + ID + "/shard-00000/segments_2", "seg");
    SnapshotVerifier objects = new SnapshotVerifier(new ObjectStoreView(root));
    assertEquals(List.of(), objects.check(m, SnapshotVerifier.Scope.SERVING, true).problems());

    // A copy planted in the snapshot's own directory is not what readers read: reported as unlisted.
    put("snapshots/" + ID + "/shard-00000/_0.cfs", "cfs!!");
    assertEquals(List.of("shard-00000/_0.cfs: not listed in the manifest"),
        objects.check(m, SnapshotVerifier.Scope.SERVING, true).problems());
    Files.delete(root.resolve("snapshots/" + ID + "/shard-00000/_0.cfs"));

    put("snapshots/" + PARENT + "/shard-00000/_0.cfs", "cfs!?");
    List<String> corrupt = objects.check(m, SnapshotVerifier.Scope.SERVING, true).problems();
    assertEquals(1, corrupt.size(), corrupt.toString());
    assertTrue(corrupt.get(0).startsWith("shard-00000/_0.cfs: sha256 "), corrupt.toString());

    Files.delete(root.resolve("snapshots/" + PARENT + "/shard-00000/_0.cfs"));
    assertEquals(List.of("shard-00000/_0.cfs: missing"), objects.check(m, SnapshotVerifier.Scope.SERVING, false)
        .problems());
  }

  @Test
  void verificationOnALocalRootReadsTheSnapshotsOwnLinkOfEachReferencedFile() throws IOException {
    Manifest m = twoSnapshots(read(golden()), Checksums.sha256("cfs!!".getBytes(StandardCharsets.UTF_8)),
        Checksums.sha256("seg".getBytes(StandardCharsets.UTF_8)));
    put("snapshots/" + PARENT + "/shard-00000/_0.cfs", "cfs!!");
    put("snapshots/" + ID + "/shard-00000/segments_2", "seg");
    SnapshotVerifier local = new SnapshotVerifier(new LocalSnapshotStorage(root));
    // Without its link the snapshot is incomplete where Lucene opens it.
    assertEquals(List.of("shard-00000/_0.cfs: missing"), local.check(m, SnapshotVerifier.Scope.SERVING, true)
        .problems());
    Files.createLink(root.resolve("snapshots/" + ID + "/shard-00000/_0.cfs"),
        root.resolve("snapshots/" + PARENT + "/shard-00000/_0.cfs"));
    assertEquals(List.of(), local.check(m, SnapshotVerifier.Scope.SERVING, true).problems());
  }
}
