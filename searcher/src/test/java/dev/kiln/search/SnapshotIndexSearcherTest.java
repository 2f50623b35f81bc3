package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.Test;

class SnapshotIndexSearcherTest {
  @Test
  void storedFieldsAreOneInstancePerThreadKeptAcrossCalls() throws Exception {
    try (Directory dir = index(); DirectoryReader reader = DirectoryReader.open(dir);
        SnapshotIndexSearcher searcher = new SnapshotIndexSearcher(reader, null)) {
      StoredFields mine = searcher.storedFields();
      assertSame(mine, searcher.storedFields(), "the same thread gets its kept instance back");
      ExecutorService other = Executors.newSingleThreadExecutor();
      try {
        StoredFields theirs = other.submit(searcher::storedFields).get();
        assertNotSame(mine, theirs, "another thread gets its own: stored fields are not thread-safe");
        assertSame(theirs, other.submit(searcher::storedFields).get());
        // Both read what the index holds, interleaved.
        assertEquals("c7", mine.document(7).get("id"));
        assertEquals("c3", other.submit(() -> searcher.storedFields().document(3).get("id")).get());
        assertEquals("c8", mine.document(8).get("id"));
      } finally {
        other.shutdownNow();
      }
    }
  }

  @Test
  void aSearcherClosedAndReopenedOnTheSameReaderReadsWithANewInstance() throws Exception {
    try (Directory dir = index(); DirectoryReader reader = DirectoryReader.open(dir)) {
      SnapshotIndexSearcher first = new SnapshotIndexSearcher(reader, null);
      StoredFields before = first.storedFields();
      first.close();
      try (SnapshotIndexSearcher second = new SnapshotIndexSearcher(reader, null)) {
        assertNotSame(before, second.storedFields());
        assertEquals("c0", second.storedFields().document(0).get("id"));
      }
    }
  }

  /** Segments of these sizes, in this order (no merges). */
  private static Directory segments(int... sizes) throws Exception {
    Directory dir = new ByteBuffersDirectory();
    try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE))) {
      for (int size : sizes) {
        for (int i = 0; i < size; i++) {
          w.addDocument(new Document());
        }
        w.commit();
      }
    }
    return dir;
  }

  private static List<Integer> docsPerSlice(IndexSearcher.LeafSlice[] slices) {
    return Arrays.stream(slices).map(IndexSearcher.LeafSlice::getMaxDocs).sorted().toList();
  }

  @Test
  void anIncrementalRebuildsSmallSegmentsJoinTheLargeOnesInAsManySlicesAsThreads() throws Exception {
    // Two shards' large segments and the small ones a rebuild added, on two threads.
    try (Directory dir = segments(500, 8, 490, 6); DirectoryReader reader = DirectoryReader.open(dir)) {
      IndexSearcher.LeafSlice[] slices = SnapshotIndexSearcher.balanced(reader.leaves(), 2);
      assertEquals(List.of(500, 504), docsPerSlice(slices)); // 500 | 490 + 8 + 6
      assertEquals(4, Arrays.stream(slices).mapToInt(s -> s.partitions.length).sum(), "every segment, once");
      assertEquals(reader.leaves().size(), Arrays.stream(slices).flatMap(s -> Arrays.stream(s.partitions))
          .map(p -> p.ctx.ord).distinct().count());
    }
  }

  @Test
  void noMoreSegmentsThanThreadsMeansOneSliceEach() throws Exception {
    try (Directory dir = segments(300, 200); DirectoryReader reader = DirectoryReader.open(dir)) {
      assertEquals(List.of(200, 300), docsPerSlice(SnapshotIndexSearcher.balanced(reader.leaves(), 4)));
      assertEquals(List.of(200, 300), docsPerSlice(SnapshotIndexSearcher.balanced(reader.leaves(), 2)));
      assertEquals(List.of(500), docsPerSlice(SnapshotIndexSearcher.balanced(reader.leaves(), 1)));
    }
  }

  @Test
  void aPooledSearcherSlicesBalancedAndFindsEveryDoc() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (Directory dir = segments(50, 3, 40, 2, 1); DirectoryReader reader = DirectoryReader.open(dir);
        SnapshotIndexSearcher searcher = new SnapshotIndexSearcher(reader, pool)) {
      assertEquals(Math.min(5, SearchThreads.size()), searcher.getSlices().length);
      assertEquals(96, searcher.count(new MatchAllDocsQuery()));
    } finally {
      pool.shutdownNow();
    }
  }

  private static Directory index() throws Exception {
    Directory dir = new ByteBuffersDirectory();
    try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig())) {
      for (int i = 0; i < 10; i++) {
        Document d = new Document();
        d.add(new StringField("id", "c" + i, Field.Store.YES));
        d.add(new StoredField("text", "text of chunk " + i));
        w.addDocument(d);
      }
    }
    return dir;
  }
}
