package dev.kiln.snapshot.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.LocalSnapshotStorage;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.VerifiedRecord;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local copy of a remote root keeps a file only while its {@code VERIFIED} record vouches for it
 * (identity unchanged since it was checked) or its bytes hash right: a file of the copy changed in
 * place is downloaded again, not kept because its size still matches.
 */
class SnapshotMirrorIdentityTest {
  @TempDir Path remote;
  @TempDir Path cache;

  private String publish() throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    SnapshotLayout layout = new SnapshotLayout(remote);
    Path f = layout.shardDir(id, 0).resolve("_0.cfs");
    Files.createDirectories(f.getParent());
    Files.writeString(f, "the one shard's segment bytes");
    Manifest m = new Manifest(Manifest.FORMAT_VERSION, id, "2026-12-07T00:00:00Z", null,
        new Manifest.ModelInfo("m", 3, "mean", true, 16), new Manifest.ChunkerInfo("window", 10, 2, "m"),
        new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100), Map.of(),
        List.of(new Manifest.ShardEntry(0, SnapshotLayout.shardDirName(0), 1, 1,
            List.of(new Manifest.FileEntry("_0.cfs", Files.size(f), Checksums.sha256(f))))), null, null);
    SnapshotStore.json().writeValue(layout.manifest(id).toFile(), m);
    Files.writeString(layout.current(), id + "\n");
    return id;
  }

  @Test
  void aFileOfTheLocalCopyChangedInPlaceIsDownloadedAgain() throws Exception {
    String id = publish();
    SnapshotMirror mirror = new SnapshotMirror(new LocalSnapshotStorage(remote), "test://remote", cache);
    Path local = mirror.localizeForServing(null);
    Path copy = new SnapshotLayout(local).shardDir(id, 0).resolve("_0.cfs");
    VerifiedRecord record = new SnapshotStore(local).verifiedRecord(id).orElseThrow();
    assertEquals(VerifiedRecord.FORMAT_VERSION, record.formatVersion());
    assertEquals(List.of("shard-00000/_0.cfs"), List.copyOf(record.identities().keySet()));

    // An intact file whose identity changed is hashed and kept, not downloaded again.
    Files.setLastModifiedTime(copy, FileTime.from(Instant.now().minusSeconds(600)));
    Object inode = Files.readAttributes(copy, BasicFileAttributes.class).fileKey();
    mirror.localizeForServing(null);
    assertEquals(inode, Files.readAttributes(copy, BasicFileAttributes.class).fileKey());

    try (RandomAccessFile f = new RandomAccessFile(copy.toFile(), "rw")) {
      f.seek(4);
      f.write('X');
    }
    mirror.localizeForServing(null);
    assertArrayEquals(Files.readAllBytes(new SnapshotLayout(remote).shardDir(id, 0).resolve("_0.cfs")),
        Files.readAllBytes(copy), "the changed file was downloaded again");
    assertNotEquals(inode, Files.readAttributes(copy, BasicFileAttributes.class).fileKey());
  }
}
