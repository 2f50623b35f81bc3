package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.snapshot.Verification;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A byte flipped in a shard file after the snapshot was verified (same size) must not be searched:
 * the {@code VERIFIED} record binds each file's identity (size, modification time, file key), so a
 * file changed or replaced since is hashed again at open and refused by name.
 */
class FlippedShardFileTest {
  @TempDir Path root;
  private String id;
  private Path victim;

  @BeforeEach
  void verifiedSnapshot() throws Exception {
    id = SnapshotFixture.withVectors(c -> unit(384, c.text().length())).write(root);
    SnapshotLayout layout = new SnapshotLayout(root);
    // Written well before it was verified, as a published snapshot is: identities can bind.
    Tampering.backdate(layout.snapshotDir(id), Duration.ofMinutes(10));
    assertEquals(List.of(), new SnapshotStore(root).verifyAndRecord(id, "publish"));
    victim = Tampering.segmentFile(layout.shardDir(id, 0));
    try (Searcher s = Searcher.open(root)) {
      assertEquals(id, s.snapshotId(), "the intact snapshot opens");
    }
  }

  private String name() {
    return "shard-00000/" + victim.getFileName();
  }

  @Test
  void aByteFlippedInPlaceIsRefusedNamingTheFile() throws Exception {
    Tampering.flipInPlace(victim);
    SnapshotException e = assertThrows(SnapshotException.class, () -> Searcher.open(root).close());
    assertTrue(e.getMessage().contains(name() + ": sha256"), e.getMessage());
  }

  @Test
  void aFlippedCopyWithTheOldModificationTimeIsRefusedNamingTheFile() throws Exception {
    Object key = Tampering.fileKey(victim);
    FileTime time = Files.getLastModifiedTime(victim);
    long size = Files.size(victim);
    Tampering.replaceByFlippedCopy(victim);
    assertEquals(time, Files.getLastModifiedTime(victim), "the copy carries the old time");
    assertEquals(size, Files.size(victim));
    assertNotEquals(key, Tampering.fileKey(victim), "the copy is another file");
    SnapshotException e = assertThrows(SnapshotException.class, () -> Searcher.open(root).close());
    assertTrue(e.getMessage().contains(name() + ": sha256"), e.getMessage());
  }

  @Test
  void aFlipThatKeptTheInodeAndTheTimeIsFoundByFullVerification() throws Exception {
    Tampering.flipInPlaceKeepingTime(victim);
    // Size, time and inode as recorded: the default check takes the file on the record's word.
    try (Searcher s = Searcher.open(root)) {
      assertFalse(s.hashedAtOpen());
    }
    SnapshotException e = assertThrows(SnapshotException.class,
        () -> Searcher.builder().root(root).verify(Verification.FULL).build().close());
    assertTrue(e.getMessage().contains(name() + ": sha256"), e.getMessage());
  }

  private static float[] unit(int dimension, int seed) {
    float[] v = new float[dimension];
    v[seed % dimension] = 1;
    return v;
  }
}
