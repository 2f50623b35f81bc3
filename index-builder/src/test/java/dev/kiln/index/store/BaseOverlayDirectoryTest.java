package dev.kiln.index.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard continued over a base read on demand: the writer deletes and adds over the base's
 * segments, and what it shares with the base is read from the base's files without downloading the
 * parts it never reads (vectors, stored text).
 */
class BaseOverlayDirectoryTest {
  static final int DOCS = 20000;
  static final int DIM = 64;

  @TempDir Path tmp;

  /** Reads ranges of a local file, counting them: a stand-in for a bucket that records what was asked. */
  static final class CountingReader implements RangeReader {
    final RandomAccessFile file;
    long bytes;

    CountingReader(Path p) throws IOException {
      file = new RandomAccessFile(p.toFile(), "r");
    }

    @Override
    public synchronized void read(long position, byte[] into, int offset, int length) throws IOException {
      file.seek(position);
      file.readFully(into, offset, length);
      bytes += length;
    }

    @Override
    public void close() throws IOException {
      file.close();
    }
  }

  static Document doc(int i, Random r) {
    Document d = new Document();
    d.add(new StringField("id", "doc" + i, Field.Store.YES));
    d.add(new TextField("text", "word" + (i % 50) + " common text of document " + i, Field.Store.NO));
    d.add(new StoredField("body", "stored body ".repeat(20) + i));
    float[] v = new float[DIM];
    for (int k = 0; k < DIM; k++) {
      v[k] = r.nextFloat();
    }
    d.add(new KnnFloatVectorField("vector", v));
    return d;
  }

  private Map<String, CachedRemoteFile> remote(Path baseDir, FetchStats stats, List<CountingReader> readers)
      throws IOException {
    Map<String, CachedRemoteFile> files = new HashMap<>();
    Path cache = Files.createDirectories(tmp.resolve("cache"));
    try (Stream<Path> list = Files.list(baseDir)) {
      for (Path p : list.toList()) {
        String name = p.getFileName().toString();
        if (name.equals("write.lock")) {
          continue;
        }
        CountingReader r = new CountingReader(p);
        readers.add(r);
        files.put(name, new CachedRemoteFile(name, Files.size(p), r, cache.resolve(name), 16 * 1024, stats));
      }
    }
    return files;
  }

  @Test
  void aWriterContinuesTheBaseReadingOnlyWhatItNeedsAndNeverChangesIt() throws Exception {
    Path baseDir = tmp.resolve("base");
    Random r = new Random(7);
    IndexWriterConfig baseConfig = new IndexWriterConfig(new StandardAnalyzer());
    baseConfig.setUseCompoundFile(false);
    try (FSDirectory d = FSDirectory.open(baseDir); IndexWriter w = new IndexWriter(d, baseConfig)) {
      for (int i = 0; i < DOCS; i++) {
        w.addDocument(doc(i, r));
      }
      w.forceMerge(1);
    }
    Map<String, byte[]> before = new HashMap<>();
    long baseBytes = 0;
    try (Stream<Path> list = Files.list(baseDir)) {
      for (Path p : list.toList()) {
        before.put(p.getFileName().toString(), Files.readAllBytes(p));
        baseBytes += Files.size(p);
      }
    }

    FetchStats stats = new FetchStats();
    List<CountingReader> readers = new ArrayList<>();
    Map<String, CachedRemoteFile> files = remote(baseDir, stats, readers);
    Path newDir = tmp.resolve("new");
    Set<String> shared;
    IndexWriterConfig c = new IndexWriterConfig(new StandardAnalyzer());
    c.setOpenMode(IndexWriterConfig.OpenMode.APPEND);
    c.setMergePolicy(NoMergePolicy.INSTANCE);
    try (BaseOverlayDirectory overlay = new BaseOverlayDirectory(FSDirectory.open(newDir), files)) {
      try (IndexWriter w = new IndexWriter(overlay, c)) {
        for (int i = 0; i < 30; i++) {
          w.deleteDocuments(new Term("id", "doc" + (i * 7)));
        }
        for (int i = DOCS; i < DOCS + 30; i++) {
          w.addDocument(doc(i, r));
        }
        w.commit();
      }
      shared = overlay.baseFiles();
    }
    assertFalse(shared.isEmpty());
    assertFalse(shared.stream().anyMatch(n -> n.startsWith("segments_")), "the old commit point was dropped");
    Set<String> written = new TreeSet<>();
    try (Stream<Path> list = Files.list(newDir)) {
      list.forEach(p -> written.add(p.getFileName().toString()));
    }
    for (String n : shared) {
      assertFalse(written.contains(n), "a shared file is not copied: " + n);
    }
    assertTrue(stats.bytes() < baseBytes / 4, "fetched " + stats.bytes() + " of " + baseBytes + " base bytes");
    long asked = readers.stream().mapToLong(x -> x.bytes).sum();
    assertEquals(stats.bytes(), asked);

    // The finished shard reads back through a view of its new files and the shared base files.
    Map<String, CachedRemoteFile> view = new HashMap<>(files);
    view.keySet().retainAll(shared);
    try (BaseOverlayDirectory d = new BaseOverlayDirectory(FSDirectory.open(newDir), view);
        DirectoryReader reader = DirectoryReader.open(d)) {
      assertEquals(DOCS, reader.numDocs());
      IndexSearcher s = new IndexSearcher(reader);
      assertEquals(0, s.count(new TermQuery(new Term("id", "doc7"))));
      assertEquals(1, s.count(new TermQuery(new Term("id", "doc8"))));
      assertEquals(1, s.count(new TermQuery(new Term("id", "doc" + (DOCS + 3)))));
      assertEquals(10, s.search(new KnnFloatVectorQuery("vector", new float[DIM], 10), 10).scoreDocs.length);
      assertTrue(s.storedFields().document(s.search(new TermQuery(new Term("id", "doc8")), 1).scoreDocs[0].doc)
          .get("body").endsWith("8"));
    }
    for (Map.Entry<String, byte[]> e : before.entrySet()) {
      assertArrayEquals(e.getValue(), Files.readAllBytes(baseDir.resolve(e.getKey())), "base file changed: "
          + e.getKey());
    }
    for (CachedRemoteFile f : files.values()) {
      f.close();
    }
  }

  @Test
  void aBaseFileIsNeverWrittenNorRenamed() throws Exception {
    Path cacheFile = tmp.resolve("c");
    Path data = Files.write(tmp.resolve("data"), new byte[100]);
    FetchStats stats = new FetchStats();
    try (CachedRemoteFile f = new CachedRemoteFile("_0.cfs", 100, new CountingReader(data), cacheFile, 16, stats);
        BaseOverlayDirectory d = new BaseOverlayDirectory(new ByteBuffersDirectory(), Map.of("_0.cfs", f))) {
      assertThrows(FileAlreadyExistsException.class, () -> d.createOutput("_0.cfs", IOContext.DEFAULT));
      assertThrows(IOException.class, () -> d.rename("_0.cfs", "_1.cfs"));
      assertEquals(100, d.fileLength("_0.cfs"));
      d.deleteFile("_0.cfs");
      assertEquals(Set.of(), d.baseFiles());
      assertTrue(Files.exists(data), "dropping a base file from the view leaves it where it lives");
      assertEquals(0, stats.bytes());
    }
  }
}
