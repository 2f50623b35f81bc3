package dev.kiln.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.index.store.BaseOverlayDirectory;
import dev.kiln.index.store.CachedRemoteFile;
import dev.kiln.index.store.FetchStats;
import dev.kiln.index.store.RangeReader;
import dev.kiln.model.ParentChunk;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A docstore part continued over its base, as a changelog build continues it: the parents of removed
 * documents go, fresh parents come, the count is the live parents, and the base's segment is shared
 * (hard-linked, or read on demand) instead of copied; the base's files never change.
 */
class ParentStoreWriterTest {
  static final int DOCS = 2000;

  @TempDir Path tmp;
  Path base;
  Map<String, byte[]> baseBytes;

  static ParentChunk parent(String docId, int ordinal, String text) {
    return new ParentChunk(docId + "#p" + ordinal, docId, ordinal, "title " + docId, "", text, 12);
  }

  @BeforeEach
  void writeBase() throws IOException {
    base = tmp.resolve("base");
    Random r = new Random(44);
    try (ParentStoreWriter w = new ParentStoreWriter(base)) {
      for (int i = 0; i < DOCS; i++) {
        for (int p = 0; p < 2; p++) {
          // Random words, so that the stored fields are about as large as a real part's text.
          w.add(parent("d" + i, p, "base text of d" + i + " part " + p + " " + words(r, 60)));
        }
      }
    }
    baseBytes = contents(base);
  }

  static String words(Random r, int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append(Integer.toString(r.nextInt(1 << 30), 36)).append(' ');
    }
    return b.toString();
  }

  static Map<String, byte[]> contents(Path dir) throws IOException {
    Map<String, byte[]> out = new TreeMap<>();
    try (Stream<Path> list = Files.list(dir)) {
      for (Path p : list.toList()) {
        if (!p.getFileName().toString().equals("write.lock")) {
          out.put(p.getFileName().toString(), Files.readAllBytes(p));
        }
      }
    }
    return out;
  }

  /** Deletes d3 and d5, upserts d3 with one fresh parent, adds new-doc: 2 × 300 − 4 + 2 parents. */
  static void change(ParentStoreWriter w) throws IOException {
    w.deleteDocument("d3");
    w.deleteDocument("d5");
    w.add(parent("d3", 0, "fresh text of d3"));
    w.add(parent("new-doc", 0, "text of a new document"));
  }

  /** The stored text of {@code parentId}, or {@code null} when no live parent has it. */
  static String text(Directory dir, String parentId) throws IOException {
    try (DirectoryReader r = DirectoryReader.open(dir)) {
      IndexSearcher s = new IndexSearcher(r);
      TopDocs top = s.search(new TermQuery(new Term(ParentStoreWriter.PARENT_ID, parentId)), 2);
      assertTrue(top.totalHits.value() <= 1, parentId + " is live once at most");
      return top.scoreDocs.length == 0 ? null
          : s.storedFields().document(top.scoreDocs[0].doc).get(ParentStoreWriter.TEXT);
    }
  }

  static void assertChanged(Directory dir) throws IOException {
    assertEquals("fresh text of d3", text(dir, "d3#p0"));
    assertEquals(null, text(dir, "d3#p1"), "the upserted document's old parent is gone");
    assertEquals(null, text(dir, "d5#p0"));
    assertEquals(null, text(dir, "d5#p1"));
    assertEquals("text of a new document", text(dir, "new-doc#p0"));
    assertTrue(text(dir, "d7#p1").startsWith("base text of d7 part 1"));
    try (DirectoryReader r = DirectoryReader.open(dir)) {
      assertEquals(2 * DOCS - 2, r.numDocs());
    }
  }

  /** The base's stored-fields data file (the bulk of a part). */
  String baseData() {
    return baseBytes.keySet().stream().filter(n -> n.endsWith(".fdt") || n.endsWith(".cfs")).findFirst()
        .orElseThrow(() -> new AssertionError("no stored fields file in " + baseBytes.keySet()));
  }

  @Test
  void aLocalBasePartIsHardLinkedAndAppendedToNotCopied() throws Exception {
    Path next = tmp.resolve("next");
    ParentStoreWriter w = ParentStoreWriter.continuing(next, base);
    change(w);
    w.close();
    assertEquals(2 * DOCS - 2, w.parents());
    try (FSDirectory d = FSDirectory.open(next)) {
      assertChanged(d);
    }
    String data = baseData();
    assertTrue(Files.isSameFile(base.resolve(data), next.resolve(data)), "the base segment is shared, not rewritten");
    assertTrue(contents(next).keySet().stream().anyMatch(n -> n.endsWith(".liv")),
        "the deletes are a new generation of live docs");
    assertEquals(baseBytes.keySet(), contents(base).keySet());
    contents(base).forEach((n, b) -> assertTrue(Arrays.equals(baseBytes.get(n), b), n + " changed"));
  }

  @Test
  void aRemoteBasePartIsReadOnDemandAndOnlyNewFilesAreWritten() throws Exception {
    Path next = tmp.resolve("next");
    FetchStats stats = new FetchStats();
    Map<String, CachedRemoteFile> files = new HashMap<>();
    Path cache = Files.createDirectories(tmp.resolve("cache"));
    long size = 0;
    for (Map.Entry<String, byte[]> e : baseBytes.entrySet()) {
      files.put(e.getKey(), new CachedRemoteFile(e.getKey(), e.getValue().length, new FileRanges(base.resolve(e.getKey())),
          cache.resolve(e.getKey()), 4096, stats));
      size += e.getValue().length;
    }
    try {
      ParentStoreWriter w = ParentStoreWriter.continuingOver(next, files);
      change(w);
      w.close();
      assertEquals(2 * DOCS - 2, w.parents());
      Set<String> shared = w.sharedBaseFiles();
      String data = baseData();
      assertTrue(shared.contains(data), "the base's stored fields are shared: " + shared);
      assertFalse(Files.exists(next.resolve(data)), "no copy of the base segment was written");
      assertTrue(stats.bytes() < size / 10, "read " + stats.bytes() + " of the base's " + size + " bytes");
      Map<String, CachedRemoteFile> kept = new HashMap<>(files);
      kept.keySet().retainAll(shared);
      try (Directory view = new BaseOverlayDirectory(FSDirectory.open(next), kept)) {
        assertChanged(view);
      }
    } finally {
      for (CachedRemoteFile f : files.values()) {
        f.close();
      }
    }
  }

  @Test
  void restoringABaseDocumentPutsBackTheBasesParentsInPlaceOfItsFreshOnes() throws Exception {
    Path next = tmp.resolve("next");
    ParentStoreWriter w = ParentStoreWriter.continuing(next, base);
    // An incremental build's fresh record of d4 that turns out to lose to the base's unchanged one.
    w.deleteDocument("d4");
    w.add(parent("d4", 0, "fresh text of d4"));
    w.add(parent("d4", 2, "a third parent the base never had"));
    w.add(parent("new-doc", 0, "text of a new document"));
    assertEquals(2, w.restoreBase("d4"));
    // Nothing fresh of d9 was written: restoring it leaves the same parents.
    assertEquals(2, w.restoreBase("d9"));
    w.close();
    assertEquals(2 * DOCS + 1, w.parents());
    try (FSDirectory d = FSDirectory.open(next)) {
      assertTrue(text(d, "d4#p0").startsWith("base text of d4 part 0"), text(d, "d4#p0"));
      assertTrue(text(d, "d4#p1").startsWith("base text of d4 part 1"), text(d, "d4#p1"));
      assertEquals(null, text(d, "d4#p2"), "the fresh record's extra parent is gone");
      assertTrue(text(d, "d9#p1").startsWith("base text of d9 part 1"));
      assertEquals("text of a new document", text(d, "new-doc#p0"));
    }
    contents(base).forEach((n, b) -> assertTrue(Arrays.equals(baseBytes.get(n), b), n + " changed"));
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> {
      try (ParentStoreWriter fresh = new ParentStoreWriter(tmp.resolve("fresh"))) {
        fresh.restoreBase("d1");
      }
    });
    assertTrue(e.getMessage().contains("continues a base"), e.getMessage());
  }

  @Test
  void aNewPartIsMergedToOneSegmentAndCountsWhatWasAdded() throws Exception {
    try (DirectoryReader r = DirectoryReader.open(FSDirectory.open(base))) {
      assertEquals(1, r.leaves().size());
      assertEquals(2 * DOCS, r.numDocs());
    }
  }

  /** Ranges of a local file: the remote base's objects, as a bucket would serve them. */
  static final class FileRanges implements RangeReader {
    final RandomAccessFile file;

    FileRanges(Path p) throws IOException {
      file = new RandomAccessFile(p.toFile(), "r");
    }

    @Override
    public synchronized void read(long position, byte[] into, int offset, int length) throws IOException {
      file.seek(position);
      file.readFully(into, offset, length);
    }

    @Override
    public void close() throws IOException {
      file.close();
    }
  }
}
