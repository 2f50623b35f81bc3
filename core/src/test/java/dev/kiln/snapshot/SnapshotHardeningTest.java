package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hostile manifests and pointers, and verification that is recorded instead of repeated. */
class SnapshotHardeningTest {
  @TempDir Path root;

  private static final Manifest.ModelInfo MODEL = new Manifest.ModelInfo("m", 3, "mean", true, 16);
  private static final Manifest.ChunkerInfo CHUNKER = new Manifest.ChunkerInfo("window", 10, 2, "m");
  private static final Manifest.IndexInfo INDEX = new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100);

  private Manifest manifest(String id, List<Manifest.ShardEntry> shards, Manifest.EmbeddingsInfo embeddings) {
    return new Manifest(Manifest.FORMAT_VERSION, id, "2026-12-03T00:00:00Z", null, MODEL, CHUNKER, INDEX, Map.of(),
        shards, null, embeddings);
  }

  private Manifest.FileEntry file(Path dir, String name, String content) throws Exception {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(name), content);
    return new Manifest.FileEntry(name, content.length(), Checksums.sha256(dir.resolve(name)));
  }

  /** A two-shard snapshot with stored vectors, written to disk. */
  private Manifest snapshot(String id) throws Exception {
    SnapshotLayout layout = new SnapshotLayout(root);
    List<Manifest.ShardEntry> shards = new ArrayList<>();
    for (int s = 0; s < 2; s++) {
      shards.add(new Manifest.ShardEntry(s, SnapshotLayout.shardDirName(s), 1, 1,
          List.of(file(layout.shardDir(id, s), "_0.cfs", "shard " + s + " data"))));
    }
    Manifest.EmbeddingsInfo e = new Manifest.EmbeddingsInfo("embeddings", "sha256:x", 3, 1, 0, null,
        List.of(file(layout.snapshotDir(id).resolve("embeddings"), "part-00000.parquet", "vectors")));
    Manifest m = manifest(id, shards, e);
    SnapshotStore.json().writeValue(layout.manifest(id).toFile(), m);
    return m;
  }

  private void writeManifest(Manifest m) throws Exception {
    Path p = new SnapshotLayout(root).manifest(m.id());
    Files.createDirectories(p.getParent());
    SnapshotStore.json().writeValue(p.toFile(), m);
  }

  @Test
  void manifestsNamingFilesOutsideTheSnapshotAreRefused() throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    SnapshotStore store = new SnapshotStore(root);
    for (String name : List.of("/etc/passwd", "../../../CURRENT", "a//b", "..")) {
      writeManifest(manifest(id, List.of(new Manifest.ShardEntry(0, "shard-00000", 1, 1,
          List.of(new Manifest.FileEntry(name, 1, "0".repeat(64))))), null));
      SnapshotException e = assertThrows(SnapshotException.class, () -> store.manifest(id), name);
      assertTrue(e.getMessage().contains("malformed") && e.getMessage().contains("not a plain name"), e.getMessage());
    }
    writeManifest(manifest(id, List.of(new Manifest.ShardEntry(0, "../../elsewhere", 1, 1,
        List.of(new Manifest.FileEntry("_0.cfs", 1, "0".repeat(64))))), null));
    assertTrue(assertThrows(SnapshotException.class, () -> store.manifest(id)).getMessage()
        .contains("expected shard-00000"));
  }

  @Test
  void aManifestMustListShards0ToNMinus1OnceEach() throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    SnapshotStore store = new SnapshotStore(root);
    writeManifest(manifest(id, List.of(), null));
    assertTrue(assertThrows(SnapshotException.class, () -> store.manifest(id)).getMessage().contains("lists no shards"));
    Manifest.FileEntry f = new Manifest.FileEntry("_0.cfs", 1, "0".repeat(64));
    writeManifest(manifest(id, List.of(new Manifest.ShardEntry(0, "shard-00000", 1, 1, List.of(f)),
        new Manifest.ShardEntry(0, "shard-00000", 1, 1, List.of(f))), null));
    assertTrue(assertThrows(SnapshotException.class, () -> store.manifest(id)).getMessage().contains("listed twice"));
    writeManifest(manifest(id, List.of(new Manifest.ShardEntry(0, "shard-00000", 1, 1, List.of(f)),
        new Manifest.ShardEntry(2, "shard-00002", 1, 1, List.of(f))), null));
    assertTrue(assertThrows(SnapshotException.class, () -> store.manifest(id)).getMessage().contains("outside 0..1"));
    writeManifest(manifest(id, List.of(new Manifest.ShardEntry(0, "shard-00000", 1, 1, List.of())), null));
    assertTrue(assertThrows(SnapshotException.class, () -> store.manifest(id)).getMessage().contains("lists no files"));
  }

  @Test
  void aServingCheckLeavesTheShardsFingerprintFilesToACheckOfEverything() throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    SnapshotLayout layout = new SnapshotLayout(root);
    Manifest.FileEntry data = file(layout.shardDir(id, 0), "_0.cfs", "shard data");
    Manifest.FileEntry fps = file(layout.shardDir(id, 0), SnapshotLayout.SHARD_FINGERPRINTS, "0123456789abcdef");
    Manifest m = manifest(id, List.of(new Manifest.ShardEntry(0, SnapshotLayout.shardDirName(0), 1, 1,
        List.of(data, fps))), null);
    writeManifest(m);
    SnapshotVerifier verifier = new SnapshotVerifier(new LocalSnapshotStorage(root));
    assertEquals(List.of(), verifier.check(m, SnapshotVerifier.Scope.ALL, true).problems());
    assertEquals(1, verifier.check(m, SnapshotVerifier.Scope.SERVING, true).files(), "only what a searcher reads");

    // A serving copy without the file (as SnapshotMirror downloads one) passes a serving check only.
    Files.delete(layout.shardDir(id, 0).resolve(SnapshotLayout.SHARD_FINGERPRINTS));
    assertEquals(List.of(), verifier.check(m, SnapshotVerifier.Scope.SERVING, true).problems());
    assertEquals(List.of("shard-00000/" + SnapshotLayout.SHARD_FINGERPRINTS + ": missing"),
        verifier.check(m, SnapshotVerifier.Scope.ALL, false).problems());
    // A damaged one is found by a check of everything; the segments are checked by both.
    Files.writeString(layout.shardDir(id, 0).resolve(SnapshotLayout.SHARD_FINGERPRINTS), "0123456789abcdeX");
    assertEquals(List.of(), verifier.check(m, SnapshotVerifier.Scope.SERVING, true).problems());
    assertTrue(verifier.check(m, SnapshotVerifier.Scope.ALL, true).problems().get(0)
        .startsWith("shard-00000/" + SnapshotLayout.SHARD_FINGERPRINTS + ": sha256"));
    Files.writeString(layout.shardDir(id, 0).resolve("_0.cfs"), "shard dat!");
    assertTrue(verifier.check(m, SnapshotVerifier.Scope.SERVING, true).problems().get(0).startsWith("shard-00000/_0.cfs: sha256"));
  }

  @Test
  void filesTheManifestDoesNotListAreReported() throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    Manifest m = snapshot(id);
    SnapshotStore store = new SnapshotStore(root);
    assertEquals(List.of(), store.verify(m));
    // Lucene opens the newest segments_N it finds: a planted one must never pass as verified.
    Files.writeString(store.layout().shardDir(id, 1).resolve("segments_9"), "planted");
    Files.writeString(store.layout().snapshotDir(id).resolve("extra.bin"), "x");
    List<String> problems = store.verify(m);
    assertTrue(problems.contains("shard-00001/segments_9: not listed in the manifest"), problems.toString());
    assertTrue(problems.contains("extra.bin: not listed in the manifest"), problems.toString());
    assertThrows(SnapshotException.class, () -> store.openForServing(id));
  }

  @Test
  void aHugeCurrentOrManifestIsRefusedWithoutReadingIt() throws Exception {
    SnapshotStore store = new SnapshotStore(root);
    try (RandomAccessFile f = new RandomAccessFile(root.resolve("CURRENT").toFile(), "rw")) {
      f.setLength(3L << 30); // sparse: 3 GiB that read whole would be an OutOfMemoryError
    }
    SnapshotException e = assertThrows(SnapshotException.class, store::current);
    assertTrue(e.getMessage().contains("larger than " + SnapshotLayout.MAX_CURRENT_BYTES), e.getMessage());

    String id = SnapshotLayout.newSnapshotId();
    Files.createDirectories(store.layout().snapshotDir(id));
    try (RandomAccessFile f = new RandomAccessFile(store.layout().manifest(id).toFile(), "rw")) {
      f.setLength(SnapshotLayout.MAX_MANIFEST_BYTES + 1L);
    }
    e = assertThrows(SnapshotException.class, () -> store.manifest(id));
    assertTrue(e.getMessage().contains("larger than"), e.getMessage());
  }

  @Test
  void aVerifiedRecordSparesTheSearcherTheHashingOfUnchangedFilesButNotTheSizes() throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    snapshot(id);
    SnapshotStore store = new SnapshotStore(root);
    assertTrue(store.openForServing(id).everyFileHashed(), "no record yet: every served file is hashed");
    // Written well before it was verified, as a published snapshot is: the record vouches for them.
    FileTime written = FileTime.from(Instant.now().minusSeconds(600));
    for (int s = 0; s < 2; s++) {
      Files.setLastModifiedTime(store.layout().shardDir(id, s).resolve("_0.cfs"), written);
    }
    assertEquals(List.of(), store.verifyAndRecord(id, "publish"));
    assertFalse(store.openForServing(id).hashed(), "recorded, unchanged since: sizes only");

    // Same size, different bytes: the file changed since the record, so it is hashed at open and refused.
    Path shardFile = store.layout().shardDir(id, 0).resolve("_0.cfs");
    Files.writeString(shardFile, "shard X data");
    assertTrue(assertThrows(SnapshotException.class, () -> store.openForServing(id)).getMessage()
        .contains("shard-00000/_0.cfs: sha256"));
    // With the old time put back (same inode, size and time) only a full verification sees it.
    Files.setLastModifiedTime(shardFile, written);
    assertFalse(store.openForServing(id).hashed());
    assertTrue(assertThrows(SnapshotException.class, () -> store.openForServing(id, Verification.FULL)).getMessage()
        .contains("shard-00000/_0.cfs: sha256"));
    assertTrue(store.verify(store.manifest(id)).get(0).contains("shard-00000/_0.cfs: sha256"));
    // A truncated file is caught without hashing.
    Files.writeString(shardFile, "short");
    assertTrue(assertThrows(SnapshotException.class, () -> store.openForServing(id)).getMessage().contains("size 5"));
    // A failed verification removes the record, so searchers hash (and refuse) again.
    Files.writeString(shardFile, "shard X data");
    Files.setLastModifiedTime(shardFile, written);
    assertFalse(store.verifyAndRecord(id, "verify").isEmpty());
    assertTrue(store.verifiedRecord(id).isEmpty());
    assertThrows(SnapshotException.class, () -> store.openForServing(id));
  }

  @Test
  void aRecordForAnotherManifestIsIgnoredAndStoredVectorsAreNeverHashedAtOpen() throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    Manifest m = snapshot(id);
    SnapshotStore store = new SnapshotStore(root);
    assertEquals(List.of(), store.verifyAndRecord(id, "publish"));
    // The searcher does not read stored vectors: a damaged part does not stop it, but verify sees it.
    Files.writeString(store.layout().snapshotDir(id).resolve("embeddings/part-00000.parquet"), "VECTORS");
    writeManifest(new Manifest(m.formatVersion(), m.id(), "2026-12-03T00:00:01Z", m.parent(), m.model(), m.chunker(),
        m.index(), m.counters(), m.shards(), null, m.embeddings()));
    SnapshotStore.Opened opened = store.openForServing(id);
    assertTrue(opened.hashed(), "the record was made for another manifest");
    assertTrue(store.verify(store.manifest(id)).get(0).contains("embeddings/part-00000.parquet: sha256"));
  }

  /** Writes {@code corpus-files.tsv} into snapshot {@code id} and returns its manifest section. */
  private Manifest.CorpusFilesEntry corpusFiles(String id) throws Exception {
    Path file = new SnapshotLayout(root).snapshotDir(id).resolve(SnapshotLayout.CORPUS_FILES);
    try (OutputStream out = Files.newOutputStream(file)) {
      return CorpusFiles.write(out, "settings", List.of(new CorpusFiles.Entry("file:/c/a.jsonl", 12, 1, false),
          new CorpusFiles.Entry("file:/c/b.jsonl", 30, 2, true)));
    }
  }

  @Test
  void aCorpusFilesSectionIsCheckedForStructure() throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    Manifest m = snapshot(id);
    SnapshotStore store = new SnapshotStore(root);
    String sha = "0".repeat(64);
    Map<Manifest.CorpusFilesEntry, String> bad = Map.of(
        new Manifest.CorpusFilesEntry("../corpus-files.tsv", 1, 0, 1, 1, sha),
        "the corpus files listing is '../corpus-files.tsv', expected corpus-files.tsv",
        new Manifest.CorpusFilesEntry("corpus\nfiles.tsv", 1, 0, 1, 1, sha), "'corpus\\u000afiles.tsv'",
        new Manifest.CorpusFilesEntry(SnapshotLayout.CORPUS_FILES, 1, 0, 1, -1, sha), "corpus-files.tsv has size -1",
        new Manifest.CorpusFilesEntry(SnapshotLayout.CORPUS_FILES, 1, 0, 1, 1, "F".repeat(64)),
        "corpus-files.tsv has no valid sha256",
        new Manifest.CorpusFilesEntry(SnapshotLayout.CORPUS_FILES, 1, 0, 1, 1, null), "no valid sha256",
        new Manifest.CorpusFilesEntry(SnapshotLayout.CORPUS_FILES, -1, 0, 1, 1, sha), "counts -1 files",
        new Manifest.CorpusFilesEntry(SnapshotLayout.CORPUS_FILES, 1, 2, 1, 1, sha), "1 files, 2 kept",
        new Manifest.CorpusFilesEntry(SnapshotLayout.CORPUS_FILES, 1, -1, 1, 1, sha), "-1 kept",
        new Manifest.CorpusFilesEntry(SnapshotLayout.CORPUS_FILES, 1, 0, -1, 1, sha), "-1 bytes");
    bad.forEach((entry, expected) -> {
      assertEquals(1, ManifestCheck.problems(m.withCorpusFiles(entry)).size(), entry.toString());
      try {
        writeManifest(m.withCorpusFiles(entry));
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      SnapshotException e = assertThrows(SnapshotException.class, () -> store.manifest(id), entry.toString());
      assertTrue(e.getMessage().contains("malformed") && e.getMessage().contains(expected), e.getMessage());
    });
    assertEquals(List.of(), ManifestCheck.problems(m.withCorpusFiles(
        new Manifest.CorpusFilesEntry(SnapshotLayout.CORPUS_FILES, 0, 0, 0, 0, sha))));
  }

  @Test
  void aListedCorpusFilesListingIsVerifiedLikeEveryOtherFile() throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    Manifest m = snapshot(id).withCorpusFiles(corpusFiles(id));
    SnapshotStore store = new SnapshotStore(root);
    // Present but not in the manifest: unlisted, like any other file.
    assertEquals(List.of("corpus-files.tsv: not listed in the manifest"), store.verify(store.manifest(id)));
    writeManifest(m);
    assertEquals(List.of(), store.verify(store.manifest(id)));
    assertEquals(List.of(), store.verifyAndRecord(id, "publish"));
    assertEquals(4, store.verifiedRecord(id).orElseThrow().files(), "two shard files, one part, the listing");
    assertEquals(m.corpusFiles().size() + "shard 0 data".length() * 2 + "vectors".length(),
        store.verifiedRecord(id).orElseThrow().bytes());
    try (InputStream in = Files.newInputStream(store.layout().snapshotDir(id).resolve("corpus-files.tsv"))) {
      CorpusFiles listed = CorpusFiles.read(in);
      assertEquals(m.corpusFiles().files(), listed.size());
      assertEquals(m.corpusFiles().kept(), listed.keptCount());
      assertEquals(m.corpusFiles().bytes(), listed.bytes());
    }

    // One flipped byte: full verification names the file; a searcher does not read it.
    Path file = store.layout().snapshotDir(id).resolve(SnapshotLayout.CORPUS_FILES);
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length - 2] ^= 1;
    Files.write(file, bytes);
    List<String> problems = store.verify(store.manifest(id));
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).startsWith("corpus-files.tsv: sha256 "), problems.toString());
    assertTrue(new SnapshotVerifier(store.storage()).check(m, SnapshotVerifier.Scope.ALL, false).problems().isEmpty(),
        "same size: only hashing sees it");
    assertTrue(new SnapshotVerifier(store.storage()).check(m, SnapshotVerifier.Scope.SERVING, true).problems().isEmpty());
    assertFalse(store.openForServing(id).manifest().corpusFiles() == null);

    Files.write(file, Arrays.copyOf(bytes, bytes.length - 1));
    assertEquals(List.of("corpus-files.tsv: size " + (bytes.length - 1) + ", manifest says " + bytes.length),
        new SnapshotVerifier(store.storage()).check(m, SnapshotVerifier.Scope.ALL, false).problems());
    Files.delete(file);
    assertEquals(List.of("corpus-files.tsv: missing"), store.verify(store.manifest(id)));
    assertFalse(store.verifyAndRecord(id, "verify").isEmpty());
    store.openForServing(id);
  }
}
