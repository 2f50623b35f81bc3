package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A build's own publish ({@code verifyAndReport(id, "build", false)}) hashes a file it references from
 * an earlier snapshot unless a {@code VERIFIED} record — the owner's or the base's — holds the version
 * token (object stores) or identity (local roots) the file has now. Snapshots here are small
 * hand-written manifests over real files; the object store is a local root seen as S3 sees it
 * ({@link ObjectStoreView}), with a token that changes whenever a file is replaced.
 */
class ReferencedFilesPolicyTest {
  static final String OWNER = "20261203T172758Z-9f64fe";
  static final String CHILD = "20261204T020000Z-5e1f0a";
  static final String GRANDCHILD = "20261205T020000Z-0a0b0c";
  static final String CFS = "shard-00000/_0.cfs";
  private static final Manifest.ModelInfo MODEL = new Manifest.ModelInfo("m", 3, "mean", true, 16);
  private static final Manifest.ChunkerInfo CHUNKER = new Manifest.ChunkerInfo("window", 10, 2, "m");
  private static final Manifest.IndexInfo INDEX = new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100);

  @TempDir Path root;
  private int writes;

  private static String sha(String s) {
    return Checksums.sha256(s.getBytes(StandardCharsets.UTF_8));
  }

  /** Writes {@code content} at {@code key} as a new file (a replaced object: new inode, new token). */
  private void put(String key, String content) throws Exception {
    Path p = root.resolve(key);
    Files.createDirectories(p.getParent());
    Path tmp = p.resolveSibling(p.getFileName() + ".new");
    Files.writeString(tmp, content, StandardCharsets.UTF_8);
    // A freed inode number may be given again: a distinct time keeps each replacement's token new, as
    // S3's Last-Modified and ETag would be.
    Files.setLastModifiedTime(tmp, FileTime.from(Instant.now().plusSeconds(++writes)));
    Files.move(tmp, p, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Snapshot {@code id} over {@code parent}: {@code _0.cfs} (owned by {@code cfsOwner}) and its own segments file. */
  private Manifest snapshot(SnapshotStorage storage, String id, String parent, String cfsOwner, String cfs)
      throws Exception {
    String segments = "segments of " + id;
    put("snapshots/" + id + "/shard-00000/segments_1", segments);
    if (cfsOwner.equals(id)) {
      put("snapshots/" + id + "/" + CFS, cfs);
    }
    List<Manifest.FileEntry> files = List.of(
        new Manifest.FileEntry("_0.cfs", cfs.length(), sha(cfs), cfsOwner.equals(id) ? null : cfsOwner),
        new Manifest.FileEntry("segments_1", segments.length(), sha(segments)));
    Manifest m = new Manifest(Manifest.FORMAT_VERSION, id, "2026-12-03T00:00:00Z", parent, MODEL, CHUNKER, INDEX,
        Map.of(), List.of(new Manifest.ShardEntry(0, "shard-00000", 1, 1, files)));
    storage.write(SnapshotLayout.manifestKey(id), SnapshotStore.json().writeValueAsBytes(m));
    return m;
  }

  @Test
  void onAnObjectStoreAReferencedFileIsHashedUnlessARecordHoldsItsTokenNow() throws Exception {
    ObjectStoreView storage = new ObjectStoreView(root, true);
    SnapshotStore store = new SnapshotStore(new SnapshotLayout(root), storage);
    snapshot(storage, OWNER, null, OWNER, "cfs!!");
    VerifyReport owner = store.verifyAndReport(OWNER, "build", false);
    assertEquals(List.of(), owner.problems());
    assertEquals(0, owner.referencedFiles());
    assertEquals(0, owner.hashedFiles(), "the build's own files are its writers' word");
    VerifiedRecord ownerRecord = store.verifiedRecord(OWNER).orElseThrow();
    assertNotNull(ownerRecord.versions().get(CFS), ownerRecord.toString());
    assertNull(ownerRecord.identities(), "an object store keeps no identities");

    // Equal token: vouched for, nothing hashed.
    snapshot(storage, CHILD, OWNER, OWNER, "cfs!!");
    VerifyReport child = store.verifyAndReport(CHILD, "build", false);
    assertEquals(List.of(), child.problems());
    assertEquals(1, child.referencedFiles());
    assertEquals(0, child.hashedFiles(), child.toString());
    assertEquals("0 of 1 referenced files hashed (0 bytes)", child.describeReferenced());

    // The owner's object replaced with other bytes of the same size: another token, hashed, refused by name.
    put("snapshots/" + OWNER + "/" + CFS, "cfs!?");
    VerifyReport corrupt = store.verifyAndReport(CHILD, "build", false);
    assertEquals(1, corrupt.hashedFiles());
    assertEquals(5, corrupt.hashedBytes());
    assertEquals(1, corrupt.problems().size(), corrupt.problems().toString());
    assertTrue(corrupt.problems().get(0).startsWith(CFS + ": sha256 " + sha("cfs!?") + ", manifest says "
        + sha("cfs!!")), corrupt.problems().toString());
    assertTrue(store.verifiedRecord(CHILD).isEmpty(), "a failed check leaves no record");

    // Replaced again with the right bytes: another token, so hashed once, and it matches.
    put("snapshots/" + OWNER + "/" + CFS, "cfs!!");
    VerifyReport rewritten = store.verifyAndReport(CHILD, "build", false);
    assertEquals(List.of(), rewritten.problems());
    assertEquals(1, rewritten.hashedFiles());
    assertEquals(storage.stat(SnapshotLayout.fileKey(CHILD, "shard-00000",
        new Manifest.FileEntry("_0.cfs", 5, sha("cfs!!"), OWNER))).version(),
        store.verifiedRecord(CHILD).orElseThrow().versions().get(CFS), "the child records the referenced file's token");
  }

  @Test
  void aRecordWithoutVersionsOrForAnotherManifestVouchesForNothing() throws Exception {
    ObjectStoreView storage = new ObjectStoreView(root, true);
    SnapshotStore store = new SnapshotStore(new SnapshotLayout(root), storage);
    snapshot(storage, OWNER, null, OWNER, "cfs!!");
    assertEquals(List.of(), store.verifyAndRecord(OWNER, "build", false));
    snapshot(storage, CHILD, OWNER, OWNER, "cfs!!");
    VerifiedRecord was = store.verifiedRecord(OWNER).orElseThrow();

    // A record written before versions existed (or by a store without them).
    storage.write(SnapshotLayout.verifiedKey(OWNER), SnapshotStore.json().writeValueAsBytes(new VerifiedRecord(
        was.formatVersion(), was.manifestSha256(), was.verified(), was.by(), was.files(), was.bytes(), null, null)));
    assertEquals(1, store.verifyAndReport(CHILD, "build", false).hashedFiles());

    // A record whose versions are right but for another manifest.
    storage.write(SnapshotLayout.verifiedKey(OWNER), SnapshotStore.json().writeValueAsBytes(new VerifiedRecord(
        was.formatVersion(), sha("another manifest"), was.verified(), was.by(), was.files(), was.bytes(), null, null,
        was.versions())));
    assertEquals(1, store.verifyAndReport(CHILD, "build", false).hashedFiles());

    // No record at all.
    storage.delete(SnapshotLayout.verifiedKey(OWNER));
    assertEquals(1, store.verifyAndReport(CHILD, "build", false).hashedFiles());

    // A store without tokens: every referenced file is hashed, however fresh the owner's record.
    SnapshotStore tokenless = new SnapshotStore(new SnapshotLayout(root), new ObjectStoreView(root));
    assertEquals(List.of(), tokenless.verifyAndRecord(OWNER, "build", false));
    VerifyReport r = tokenless.verifyAndReport(CHILD, "build", false);
    assertEquals(List.of(), r.problems());
    assertEquals(1, r.hashedFiles());
  }

  @Test
  void theBasesRecordVouchesOnceTheOwnersIsGoneButOnlyForTheSameFile() throws Exception {
    ObjectStoreView storage = new ObjectStoreView(root, true);
    SnapshotStore store = new SnapshotStore(new SnapshotLayout(root), storage);
    snapshot(storage, OWNER, null, OWNER, "cfs!!");
    assertEquals(List.of(), store.verifyAndRecord(OWNER, "build", false));
    snapshot(storage, CHILD, OWNER, OWNER, "cfs!!");
    assertEquals(List.of(), store.verifyAndRecord(CHILD, "build", false));
    // gc removed the owner's manifest and record, keeping the file the others reference.
    storage.delete(SnapshotLayout.manifestKey(OWNER));
    storage.delete(SnapshotLayout.verifiedKey(OWNER));
    snapshot(storage, GRANDCHILD, CHILD, OWNER, "cfs!!");
    assertEquals(0, store.verifyAndReport(GRANDCHILD, "build", false).hashedFiles(), "the child's record vouches");

    // A base whose manifest lists the name with another SHA-256 does not vouch for this file.
    Manifest child = store.manifest(CHILD);
    Manifest.ShardEntry s = child.shards().get(0);
    Manifest.FileEntry other = new Manifest.FileEntry("_0.cfs", 5, sha("cfs??"), OWNER);
    Manifest changed = new Manifest(child.formatVersion(), CHILD, child.created(), child.parent(), MODEL, CHUNKER,
        INDEX, Map.of(), List.of(new Manifest.ShardEntry(0, s.directory(), 1, 1, List.of(other, s.files().get(1)))));
    byte[] changedBytes = SnapshotStore.json().writeValueAsBytes(changed);
    storage.write(SnapshotLayout.manifestKey(CHILD), changedBytes);
    VerifiedRecord was = store.verifiedRecord(CHILD).orElseThrow();
    storage.write(SnapshotLayout.verifiedKey(CHILD), SnapshotStore.json().writeValueAsBytes(new VerifiedRecord(
        was.formatVersion(), Checksums.sha256(changedBytes), was.verified(), was.by(), was.files(), was.bytes(), null,
        null, was.versions())));
    assertEquals(1, store.verifyAndReport(GRANDCHILD, "build", false).hashedFiles());
  }

  @Test
  void onALocalRootTheOwnersIdentitiesVouchForTheLinkAndAChangeInPlaceIsHashed() throws Exception {
    LocalSnapshotStorage storage = new LocalSnapshotStorage(root);
    SnapshotStore store = new SnapshotStore(root);
    snapshot(storage, OWNER, null, OWNER, "cfs!!");
    Path owned = root.resolve("snapshots/" + OWNER + "/" + CFS);
    // Written well before its record: outside the racy window.
    Files.setLastModifiedTime(owned, FileTime.from(Instant.now().minusSeconds(3600)));
    assertEquals(List.of(), store.verifyAndRecord(OWNER, "build", false));
    snapshot(storage, CHILD, OWNER, OWNER, "cfs!!");
    Files.createLink(root.resolve("snapshots/" + CHILD + "/" + CFS), owned);
    VerifyReport linked = store.verifyAndReport(CHILD, "build", false);
    assertEquals(List.of(), linked.problems());
    assertEquals(0, linked.hashedFiles(), linked.toString());

    Files.writeString(owned, "cfs!?", StandardCharsets.UTF_8); // in place: the link sees it too
    VerifyReport changed = store.verifyAndReport(CHILD, "build", false);
    assertEquals(1, changed.hashedFiles());
    assertTrue(changed.problems().get(0).startsWith(CFS + ": sha256 "), changed.problems().toString());
  }

  @Test
  void versionTokensVouchOnlyWhenRecordedAndEqual() throws Exception {
    VerifiedRecord golden;
    try (InputStream in = getClass().getResourceAsStream("/golden/format-v2/VERIFIED-object-store")) {
      golden = SnapshotStore.json().readValue(in, VerifiedRecord.class);
    }
    assertEquals(2, golden.formatVersion());
    assertNull(golden.identities());
    String token = golden.versions().get(CFS);
    assertEquals("etag=\"0cc175b9c0f1b6a831c399e269772661\";modified=2026-12-07T01:01:58Z;size=36690", token);
    assertTrue(golden.vouchesForVersion(CFS, token));
    assertFalse(golden.vouchesForVersion(CFS, token.replace("0cc1", "0cc2")), "another ETag");
    assertFalse(golden.vouchesForVersion(CFS, null), "a store without tokens");
    assertFalse(golden.vouchesForVersion("shard-00000/_0.si", token), "a file the record does not name");
    VerifiedRecord without = new VerifiedRecord(2, golden.manifestSha256(), golden.verified(), golden.by(),
        golden.files(), golden.bytes(), null, null);
    assertFalse(without.vouchesForVersion(CFS, token), "a record without versions");
    assertNotEquals(golden, without);
    // What the current writer makes of it reads back equal.
    assertEquals(golden, SnapshotStore.json().readValue(SnapshotStore.json().writeValueAsBytes(golden),
        VerifiedRecord.class));
  }
}
