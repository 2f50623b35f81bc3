package dev.kiln.index;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code doc-fingerprints.kfp}, format version 1: written from a shard's live chunks (distinct, sorted in
 * unsigned byte order), byte for byte the golden file, looked up as the in-heap set answers, replaced
 * without touching a hard-linked copy, and refused when cut short, of another version or misaligned.
 */
class DocFingerprintFileTest {
  @TempDir Path tmp;

  /** The first 16 bytes of SHA-256 of {@code s}: how the golden file's fingerprints were made. */
  private static byte[] fp(String s) throws Exception {
    return Arrays.copyOf(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)), 16);
  }

  /** Writes one segment of chunks, each {@code {id, fingerprint}} (a null fingerprint: no doc value). */
  private static void shard(Path dir, List<Object[]> chunks, Set<String> deleted) throws IOException {
    try (FSDirectory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d, new IndexWriterConfig())) {
      for (Object[] c : chunks) {
        Document doc = new Document();
        doc.add(new StringField("id", (String) c[0], Field.Store.NO));
        if (c[1] != null) {
          doc.add(new BinaryDocValuesField(ShardSchema.DOC_FP, new BytesRef((byte[]) c[1])));
        }
        w.addDocument(doc);
      }
      for (String id : deleted) {
        w.deleteDocuments(new Term("id", id));
      }
      w.commit();
    }
  }

  @Test
  void theGoldenFileIsWhatTheWriterWritesAndItsFingerprintsAreFound() throws Exception {
    Path dir = tmp.resolve("shard");
    List<Object[]> chunks = new ArrayList<>();
    // Out of order, one document of two chunks, and a deleted chunk whose fingerprint must not appear.
    for (String s : new String[] {"golden-j", "golden-a", "golden-a", "golden-f", "golden-c", "golden-b"}) {
      chunks.add(new Object[] {s, fp(s)});
    }
    chunks.add(new Object[] {"gone", fp("golden-gone")});
    shard(dir, chunks, Set.of("gone"));
    assertEquals(5, DocFingerprintFile.write(dir));
    byte[] golden;
    try (InputStream in = getClass().getResourceAsStream("/golden/format-v1/doc-fingerprints.kfp")) {
      assertNotNull(in, "missing golden file doc-fingerprints.kfp");
      golden = in.readAllBytes();
    }
    assertArrayEquals(golden, Files.readAllBytes(dir.resolve(DocFingerprintFile.NAME)),
        "the writer's bytes are the golden file's (hand-made, never regenerated to make this pass)");

    Path goldenDir = Files.createDirectories(tmp.resolve("golden"));
    Files.write(goldenDir.resolve(DocFingerprintFile.NAME), golden);
    DocFingerprintFile f = DocFingerprintFile.open(goldenDir);
    assertEquals(5, f.size());
    for (String s : new String[] {"golden-a", "golden-b", "golden-c", "golden-f", "golden-j"}) {
      assertTrue(f.contains(fp(s)), s);
    }
    assertFalse(f.contains(fp("golden-gone")));
    assertFalse(f.contains(fp("golden-d")));
  }

  @Test
  void lookupsAnswerAsTheInHeapSetOfTheSameShard() throws Exception {
    Path dir = tmp.resolve("shard");
    Random r = new Random(17);
    List<Object[]> chunks = new ArrayList<>();
    Set<String> deleted = new HashSet<>();
    List<byte[]> all = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      byte[] b = new byte[16];
      r.nextBytes(b);
      if (i % 7 == 0) {
        b[0] = 0; // many share their first bytes: the second half of the comparison decides
        b[1] = 0;
      }
      all.add(b);
      chunks.add(new Object[] {"d" + i, b});
      if (i % 11 == 0) {
        deleted.add("d" + i);
      }
    }
    shard(dir, chunks, deleted);
    long written = DocFingerprintFile.write(dir);
    DocFingerprints heap = DocFingerprints.read(List.of(dir));
    assertEquals(heap.size(), written);
    DocFingerprintFile file = DocFingerprintFile.open(dir);
    assertEquals(20_000 - deleted.size(), file.size());
    for (int i = 0; i < all.size(); i++) {
      boolean live = !deleted.contains("d" + i);
      assertEquals(live, file.contains(all.get(i)), "d" + i);
      assertEquals(heap.contains(all.get(i)), file.contains(all.get(i)), "d" + i);
    }
    for (int i = 0; i < 5_000; i++) {
      byte[] b = new byte[16];
      r.nextBytes(b);
      assertFalse(file.contains(b));
    }
    // Strictly ascending in unsigned byte order between the header and the footer.
    byte[] bytes = Files.readAllBytes(dir.resolve(DocFingerprintFile.NAME));
    int start = CodecUtil.headerLength(DocFingerprintFile.CODEC);
    for (int at = start + 16; at < bytes.length - 16; at += 16) {
      assertTrue(Arrays.compareUnsigned(bytes, at - 16, at, bytes, at, at + 16) < 0, "order at byte " + at);
    }
  }

  /**
   * Every size around the bucket table's steps (none, one bucket, a few), with the smallest and the
   * largest fingerprint there are: each is found in its bucket, the first and the last included.
   */
  @Test
  void lookupsFindTheExtremeFingerprintsAtEverySize() throws Exception {
    Random r = new Random(5);
    for (int n : new int[] {2, 3, 7, 8, 9, 16, 33, 1000}) {
      Path dir = tmp.resolve("small-" + n);
      List<Object[]> chunks = new ArrayList<>();
      List<byte[]> all = new ArrayList<>();
      byte[] low = new byte[16];
      byte[] high = new byte[16];
      Arrays.fill(high, (byte) 0xFF);
      all.add(low);
      all.add(high);
      while (all.size() < n) {
        byte[] b = new byte[16];
        r.nextBytes(b);
        all.add(b);
      }
      for (int i = 0; i < all.size(); i++) {
        chunks.add(new Object[] {"d" + i, all.get(i)});
      }
      shard(dir, chunks, Set.of());
      DocFingerprintFile.write(dir);
      DocFingerprintFile file = DocFingerprintFile.open(dir);
      assertEquals(n, file.size());
      for (int i = 0; i < all.size(); i++) {
        assertTrue(file.contains(all.get(i)), n + " fingerprints: d" + i);
      }
      byte[] nearHigh = high.clone();
      nearHigh[15] = (byte) 0xFE;
      assertFalse(file.contains(nearHigh), n + " fingerprints: one below the largest is absent");
      byte[] nearLow = new byte[16];
      nearLow[15] = 1;
      assertFalse(file.contains(nearLow), n + " fingerprints: one above the smallest is absent");
    }
  }

  @Test
  void anEmptyShardHasAnEmptyFile() throws Exception {
    Path dir = tmp.resolve("empty");
    shard(dir, List.of(), Set.of());
    assertEquals(0, DocFingerprintFile.write(dir));
    DocFingerprintFile f = DocFingerprintFile.open(dir);
    assertEquals(0, f.size());
    assertFalse(f.contains(fp("anything")));
  }

  @Test
  void aShardWithChunksWithoutFingerprintsGetsNoFileAndLosesAStaleOne() throws Exception {
    Path dir = tmp.resolve("old");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(DocFingerprintFile.NAME), "stale");
    shard(dir, List.<Object[]>of(new Object[] {"a", null}), Set.of());
    assertEquals(-1, DocFingerprintFile.write(dir));
    assertFalse(DocFingerprintFile.present(dir));
  }

  @Test
  void rewritingTheFileLeavesAHardLinkedCopyAsItWas() throws Exception {
    Path dir = tmp.resolve("shard");
    shard(dir, List.<Object[]>of(new Object[] {"a", fp("a")}), Set.of());
    DocFingerprintFile.write(dir);
    Path base = Files.createDirectories(tmp.resolve("base")).resolve(DocFingerprintFile.NAME);
    Files.createLink(base, dir.resolve(DocFingerprintFile.NAME));
    byte[] before = Files.readAllBytes(base);
    shard(dir, List.<Object[]>of(new Object[] {"b", fp("b")}), Set.of()); // a second segment
    assertEquals(2, DocFingerprintFile.write(dir));
    assertArrayEquals(before, Files.readAllBytes(base), "the linked copy still holds one fingerprint");
    assertEquals(2, DocFingerprintFile.open(dir).size());
  }

  @Test
  void aFileCutShortOfAnotherVersionOrMisalignedIsRefused() throws Exception {
    Path dir = tmp.resolve("shard");
    shard(dir, List.<Object[]>of(new Object[] {"a", fp("a")}, new Object[] {"b", fp("b")}), Set.of());
    DocFingerprintFile.write(dir);
    Path file = dir.resolve(DocFingerprintFile.NAME);
    byte[] good = Files.readAllBytes(file);

    Files.write(file, Arrays.copyOf(good, good.length - 5));
    assertThrows(IOException.class, () -> DocFingerprintFile.open(dir), "cut short: no footer");

    byte[] version = good.clone();
    version[DocFingerprintFile.CODEC.length() + 8] = 2; // the header's version, last byte
    Files.write(file, version);
    IOException e = assertThrows(IOException.class, () -> DocFingerprintFile.open(dir));
    assertTrue(e.getMessage().contains(DocFingerprintFile.NAME), e.getMessage());

    int footer = CodecUtil.footerLength();
    byte[] misaligned = new byte[good.length + 3];
    System.arraycopy(good, 0, misaligned, 0, good.length - footer);
    System.arraycopy(good, good.length - footer, misaligned, good.length - footer + 3, footer);
    Files.write(file, misaligned);
    e = assertThrows(IOException.class, () -> DocFingerprintFile.open(dir));
    assertTrue(e.getMessage().contains("not a multiple of 16"), e.getMessage());

    Files.write(file, new byte[0]);
    assertThrows(IOException.class, () -> DocFingerprintFile.open(dir), "empty");
  }
}
