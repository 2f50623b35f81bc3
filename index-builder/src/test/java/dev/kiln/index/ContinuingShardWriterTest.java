package dev.kiln.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IndexConfig;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import dev.kiln.model.DocumentFingerprint;
import dev.kiln.model.EmbeddedChunk;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard writer that continues a base shard: the base's files are shared, never changed; deletes and
 * additions land in the new shard only; the document fingerprints come back from the doc values.
 */
class ContinuingShardWriterTest {
  @TempDir Path tmp;

  static EmbeddedChunk chunk(String doc, String text) {
    Document d = new Document(doc, "", text, Map.of(), "f");
    Chunk c = new Chunk(doc + "#0", doc, 0, "", text, 0, text.length(), 2, Map.of())
        .withDocFingerprint(DocumentFingerprint.hex(d, "s"));
    float[] v = new float[4];
    v[Math.abs(doc.hashCode()) % 4] = 1;
    return new EmbeddedChunk(c, v);
  }

  private Path base(IndexConfig config) throws IOException {
    Path base = tmp.resolve("base");
    try (ShardIndexWriter w = new ShardIndexWriter(base, config, 4)) {
      for (int i = 0; i < 20; i++) {
        w.add(chunk("doc" + i, "text of document " + i));
      }
    }
    return base;
  }

  @Test
  void theBaseFilesStayByteForByteWhileTheContinuationDeletesAndAdds() throws Exception {
    IndexConfig config = new IndexConfig();
    Path base = base(config);
    Map<String, String> before = hashes(base);
    Path next = tmp.resolve("next");
    try (ShardIndexWriter w = ShardIndexWriter.continuing(next, base, config, 4, false)) {
      w.deleteDocument("doc3");
      w.deleteDocument("doc4");
      w.add(chunk("doc3", "rewritten text"));
      w.add(chunk("doc20", "a new document"));
    }
    assertEquals(before, hashes(base), "the base's files are unchanged");
    try (FSDirectory dir = FSDirectory.open(next); DirectoryReader r = DirectoryReader.open(dir)) {
      assertEquals(20, r.numDocs());
      assertEquals(2, r.leaves().size(), "the base segment kept, one new segment: no forced merge");
    }
    try (FSDirectory dir = FSDirectory.open(base); DirectoryReader r = DirectoryReader.open(dir)) {
      assertEquals(20, r.numDocs(), "the base still has every chunk");
    }
    DocFingerprints fps = DocFingerprints.read(List.of(next));
    assertEquals(20, fps.size());
    assertTrue(fps.contains(DocumentFingerprint.of(new Document("doc3", "", "rewritten text", Map.of(), "f"), "s")));
    assertFalse(fps.contains(DocumentFingerprint.of(new Document("doc3", "", "text of document 3", Map.of(), "f"), "s")));
    assertFalse(fps.contains(DocumentFingerprint.of(new Document("doc4", "", "text of document 4", Map.of(), "f"), "s")));
    assertTrue(fps.contains(DocumentFingerprint.of(new Document("doc5", "", "text of document 5", Map.of(), "f"), "s")));
    assertTrue(DocFingerprints.present(next));
  }

  @Test
  void aForcedMergeContinuationEndsInTheConfiguredSegmentCount() throws Exception {
    IndexConfig config = new IndexConfig();
    Path base = base(config);
    Path next = tmp.resolve("next");
    try (ShardIndexWriter w = ShardIndexWriter.continuing(next, base, config, 4, true)) {
      w.add(chunk("doc20", "a new document"));
    }
    try (FSDirectory dir = FSDirectory.open(next); DirectoryReader r = DirectoryReader.open(dir)) {
      assertEquals(21, r.numDocs());
      assertEquals(1, r.leaves().size());
    }
  }

  @Test
  void chunksWithoutFingerprintsMakeABaseThatCannotBeContinued() throws Exception {
    Path old = tmp.resolve("old");
    try (ShardIndexWriter w = new ShardIndexWriter(old, new IndexConfig(), 4)) {
      w.add(new EmbeddedChunk(new Chunk("a#0", "a", 0, "", "text", 0, 4, 1, Map.of()), new float[] {1, 0, 0, 0}));
    }
    assertFalse(DocFingerprints.present(old));
    IOException e = assertThrows(IOException.class, () -> DocFingerprints.read(List.of(old)));
    assertTrue(e.getMessage().contains("without document fingerprints"), e.getMessage());
  }

  @Test
  void aDirectoryWithoutACommitIsNoBase() throws Exception {
    Path empty = Files.createDirectories(tmp.resolve("empty"));
    Files.writeString(empty.resolve("notes.txt"), "x");
    IOException e = assertThrows(IOException.class,
        () -> ShardIndexWriter.continuing(tmp.resolve("next"), empty, new IndexConfig(), 4, false));
    assertTrue(e.getMessage().contains("no committed index"), e.getMessage());
  }

  @Test
  void fingerprintsAreLookedUpExactly() {
    long[] h = {5, 1, 5, 3, 1};
    long[] l = {2, 9, 1, 0, 9};
    DocFingerprints f = DocFingerprints.sortedUnique(h, l, 5);
    assertEquals(4, f.size());
    assertTrue(f.contains(bytes(5, 2)));
    assertTrue(f.contains(bytes(1, 9)));
    assertTrue(f.contains(bytes(3, 0)));
    assertFalse(f.contains(bytes(5, 3)));
    assertFalse(f.contains(bytes(2, 9)));
    assertFalse(DocFingerprints.empty().contains(bytes(1, 9)));
  }

  private static byte[] bytes(long hi, long lo) {
    return ByteBuffer.allocate(16).putLong(hi).putLong(lo).array();
  }

  private static Map<String, String> hashes(Path dir) throws Exception {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.toList()) {
        out.put(f.getFileName().toString(),
            HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f))));
      }
    }
    return out;
  }
}
