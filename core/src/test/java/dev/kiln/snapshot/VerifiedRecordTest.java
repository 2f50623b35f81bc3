package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code VERIFIED} record binds each file's identity (format version 2): an open hashes exactly
 * the files changed, replaced or copied since, or modified just before the record was written, and
 * rebinds the record to what it hashed; a version 1 record (golden file) vouches for nothing until
 * then.
 */
class VerifiedRecordTest {
  @TempDir Path root;

  private static final Manifest.ModelInfo MODEL = new Manifest.ModelInfo("m", 3, "mean", true, 16);
  private static final Manifest.ChunkerInfo CHUNKER = new Manifest.ChunkerInfo("window", 10, 2, "m");
  private static final Manifest.IndexInfo INDEX = new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100);
  private static final FileTime LONG_AGO = FileTime.from(Instant.now().minusSeconds(600));

  /** Two shards of one file each, written "long ago" unless {@code fresh}. */
  private String snapshot(boolean fresh) throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    SnapshotLayout layout = new SnapshotLayout(root);
    List<Manifest.ShardEntry> shards = new ArrayList<>();
    for (int s = 0; s < 2; s++) {
      Path f = layout.shardDir(id, s).resolve("_0.cfs");
      Files.createDirectories(f.getParent());
      Files.writeString(f, "shard " + s + " data, long enough to flip a byte in");
      if (!fresh) {
        Files.setLastModifiedTime(f, LONG_AGO);
      }
      shards.add(new Manifest.ShardEntry(s, SnapshotLayout.shardDirName(s), 1, 1,
          List.of(new Manifest.FileEntry("_0.cfs", Files.size(f), Checksums.sha256(f)))));
    }
    SnapshotStore.json().writeValue(layout.manifest(id).toFile(), new Manifest(Manifest.FORMAT_VERSION, id,
        "2026-12-07T00:00:00Z", null, MODEL, CHUNKER, INDEX, Map.of(), shards, null, null));
    return id;
  }

  private static void flip(Path file) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(f.length() / 2);
      int b = f.read();
      f.seek(f.length() / 2);
      f.write(b ^ 1);
    }
  }

  private Path shardFile(String id, int shard) {
    return new SnapshotLayout(root).shardDir(id, shard).resolve("_0.cfs");
  }

  @Test
  void theRecordBindsEachFilesIdentity() throws Exception {
    String id = snapshot(false);
    SnapshotStore store = new SnapshotStore(root);
    assertEquals(List.of(), store.verifyAndRecord(id, "publish"));
    VerifiedRecord r = store.verifiedRecord(id).orElseThrow();
    assertEquals(2, r.formatVersion());
    assertEquals(2, r.identities().size());
    BasicFileAttributes a = Files.readAttributes(shardFile(id, 1), BasicFileAttributes.class);
    FileIdentity bound = r.identities().get("shard-00001/_0.cfs");
    assertEquals(a.size(), bound.size());
    assertEquals(a.lastModifiedTime().to(TimeUnit.NANOSECONDS), bound.modifiedNanos());
    assertEquals(String.valueOf(a.fileKey()), String.valueOf(bound.fileKey()));
    SnapshotStore.Opened opened = store.openForServing(id);
    assertEquals(0, opened.filesHashed());
    assertEquals(2, opened.files());
  }

  @Test
  void aFlippedCopyWithTheOldTimeIsRefusedAndAnIntactCopyIsHashedOnceThenTrusted() throws Exception {
    String id = snapshot(false);
    SnapshotStore store = new SnapshotStore(root);
    assertEquals(List.of(), store.verifyAndRecord(id, "publish"));
    Path file = shardFile(id, 0);
    Path copy = file.resolveSibling("copy.tmp");

    Files.copy(file, copy, StandardCopyOption.COPY_ATTRIBUTES);
    flip(copy);
    Files.setLastModifiedTime(copy, LONG_AGO);
    Object key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    Files.move(copy, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    assertNotEquals(key, Files.readAttributes(file, BasicFileAttributes.class).fileKey());
    SnapshotException e = assertThrows(SnapshotException.class, () -> store.openForServing(id));
    assertTrue(e.getMessage().contains("shard-00000/_0.cfs: sha256"), e.getMessage());

    // Put the right bytes back in another copy, with a time of its own (the file system may hand the
    // first file's freed inode number to it): hashed once, then trusted.
    flip(file);
    Files.copy(file, copy, StandardCopyOption.COPY_ATTRIBUTES);
    Files.setLastModifiedTime(copy, FileTime.from(LONG_AGO.toInstant().minusSeconds(60)));
    Files.move(copy, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    SnapshotStore.Opened first = store.openForServing(id);
    assertEquals(1, first.filesHashed(), "only the replaced file");
    assertTrue(first.rebound());
    assertEquals(0, store.openForServing(id).filesHashed());
    assertEquals("publish", store.verifiedRecord(id).orElseThrow().by(), "who verified is kept");
    assertNotNull(store.verifiedRecord(id).orElseThrow().rebound());
  }

  @Test
  void filesModifiedJustBeforeTheRecordAreHashedUntilTheRecordIsRewrittenLater() throws Exception {
    String id = snapshot(true);
    SnapshotStore store = new SnapshotStore(root);
    assertEquals(List.of(), store.verifyAndRecord(id, "publish"));
    // Their times are within a tick or two of the record's: a change in the same tick would not show.
    SnapshotStore.Opened opened = store.openForServing(id);
    assertEquals(2, opened.filesHashed());
    flip(shardFile(id, 1));
    assertTrue(assertThrows(SnapshotException.class, () -> store.openForServing(id)).getMessage()
        .contains("shard-00001/_0.cfs: sha256"));
  }

  @Test
  void aVersion1RecordIsHonouredForItsManifestOnlyAfterOneHashingOpenRebindsIt() throws Exception {
    String id = snapshot(false);
    SnapshotStore store = new SnapshotStore(root);
    String sha = Checksums.sha256(store.manifestBytes(id));
    String v1 = golden("format-v1").replace("3b0f6c1e9d2a4b8c7e5f1a0d9c8b7a6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a", sha);
    Files.writeString(store.layout().snapshotDir(id).resolve(SnapshotLayout.VERIFIED), v1);

    SnapshotStore.Opened first = store.openForServing(id);
    assertTrue(first.everyFileHashed(), "a version 1 record vouches for no file");
    assertTrue(first.rebound());
    VerifiedRecord rebound = store.verifiedRecord(id).orElseThrow();
    assertEquals(VerifiedRecord.FORMAT_VERSION, rebound.formatVersion());
    assertEquals(sha, rebound.manifestSha256());
    assertEquals("publish", rebound.by());
    assertEquals("2026-12-03T17:28:04.118Z", rebound.verified());
    assertEquals(4, rebound.files());
    assertEquals(48213, rebound.bytes());
    assertEquals(List.of("shard-00000/_0.cfs", "shard-00001/_0.cfs"), List.copyOf(rebound.identities().keySet()));
    assertEquals(0, store.openForServing(id).filesHashed());

    // A changed file is still caught after the rebinding.
    flip(shardFile(id, 0));
    assertThrows(SnapshotException.class, () -> store.openForServing(id));
  }

  @Test
  void goldenRecordsOfBothVersionsRead() throws Exception {
    VerifiedRecord v1 = SnapshotStore.json().readValue(golden("format-v1"), VerifiedRecord.class);
    assertEquals(1, v1.formatVersion());
    assertNull(v1.identities());
    assertFalse(v1.vouchesFor("shard-00000/_0.cfs", new FileIdentity(36690, 1, "(dev=fd01,ino=1)"), Long.MAX_VALUE));

    VerifiedRecord v2 = SnapshotStore.json().readValue(golden("format-v2"), VerifiedRecord.class);
    assertEquals(2, v2.formatVersion());
    assertEquals(4, v2.identities().size());
    FileIdentity cfe = v2.identities().get("shard-00000/_0.cfe");
    assertEquals(new FileIdentity(479, 1796547099418773512L, "(dev=fd01,ino=4718610)"), cfe);
    assertNull(v2.identities().get("shard-00000/_0.cfs").fileKey(), "a file system without file keys");
    long recordTime = Instant.parse("2026-12-07T09:20:01Z").toEpochMilli() * 1_000_000;
    assertTrue(v2.vouchesFor("shard-00000/_0.cfe", cfe, recordTime));
    assertFalse(v2.vouchesFor("shard-00000/_0.cfe", new FileIdentity(479, cfe.modifiedNanos(), "(dev=fd01,ino=9)"),
        recordTime), "another inode");
    assertFalse(v2.vouchesFor("shard-00000/_0.cfe", new FileIdentity(479, cfe.modifiedNanos() + 1, cfe.fileKey()),
        recordTime), "another time");
    assertFalse(v2.vouchesFor("shard-00000/_0.cfe", cfe, cfe.modifiedNanos() + VerifiedRecord.RACY.toNanos() - 1),
        "recorded too soon after the file was written");
    assertFalse(v2.vouchesFor("shard-00000/_0.cfe", null, recordTime), "a storage without identities");
    assertFalse(v2.vouchesFor("shard-00000/_0.si", cfe, recordTime), "a file the record does not name");
    // What the current writer makes of it reads back equal.
    assertEquals(v2, SnapshotStore.json().readValue(SnapshotStore.json().writeValueAsBytes(v2), VerifiedRecord.class));
  }

  private static String golden(String version) throws Exception {
    try (InputStream in = VerifiedRecordTest.class.getResourceAsStream("/golden/" + version + "/VERIFIED")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
