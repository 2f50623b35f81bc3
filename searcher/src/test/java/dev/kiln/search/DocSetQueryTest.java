package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link DocSetQuery} over a reader of several segments: top-level ids in, exactly those docs out. */
class DocSetQueryTest {
  private static final int DOCS = 30;
  private static Directory dir;
  private static DirectoryReader reader;
  private static IndexSearcher searcher;

  @BeforeAll
  static void index() throws IOException {
    dir = new ByteBuffersDirectory();
    try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE))) {
      for (int i = 0; i < DOCS; i++) {
        Document d = new Document();
        d.add(new StringField("parity", i % 2 == 0 ? "even" : "odd", Field.Store.NO));
        w.addDocument(d);
        if (i % 10 == 9) {
          w.commit(); // three segments of ten
        }
      }
    }
    reader = DirectoryReader.open(dir);
    searcher = new IndexSearcher(reader);
  }

  @AfterAll
  static void close() throws IOException {
    reader.close();
    dir.close();
  }

  private static int[] docs(TopDocs top) {
    return Arrays.stream(top.scoreDocs).mapToInt(sd -> sd.doc).sorted().toArray();
  }

  @Test
  void matchesExactlyTheGivenDocsAcrossSegmentBoundaries() throws IOException {
    assertEquals(3, reader.leaves().size());
    int[] wanted = {29, 0, 9, 10, 19, 20, 9};
    TopDocs top = searcher.search(new DocSetQuery(wanted), DOCS);
    assertArrayEquals(new int[] {0, 9, 10, 19, 20, 29}, docs(top));
    assertEquals(6, new DocSetQuery(wanted).size());
  }

  @Test
  void aFilterOfTheSetLeavesOnlyItsDocsThatMatchTheOtherClause() throws IOException {
    BooleanQuery q = new BooleanQuery.Builder()
        .add(new TermQuery(new Term("parity", "odd")), BooleanClause.Occur.SHOULD)
        .add(new DocSetQuery(new int[] {1, 2, 3, 14, 15, 27}), BooleanClause.Occur.FILTER)
        .build();
    TopDocs top = searcher.search(q, DOCS);
    // Optional clause beside a filter: every doc of the set matches, the odd ones score above 0.
    assertArrayEquals(new int[] {1, 2, 3, 14, 15, 27}, docs(top));
    for (ScoreDoc sd : top.scoreDocs) {
      assertEquals(sd.doc % 2 == 1, sd.score > 0, "doc " + sd.doc + " score " + sd.score);
    }
  }

  @Test
  void anEmptySetOrOneOutsideTheReaderMatchesNothing() throws IOException {
    assertEquals(0, searcher.count(new DocSetQuery(new int[0])));
    assertEquals(0, searcher.count(new DocSetQuery(new int[] {DOCS, DOCS + 5})));
    assertEquals(1, searcher.count(new DocSetQuery(new int[] {DOCS - 1, DOCS})));
  }

  @Test
  void equalSetsAreEqualQueriesWhateverTheirOrder() {
    assertEquals(new DocSetQuery(new int[] {3, 1, 2}), new DocSetQuery(new int[] {1, 2, 3, 3}));
    assertEquals(new DocSetQuery(new int[] {3, 1, 2}).hashCode(), new DocSetQuery(new int[] {1, 2, 3}).hashCode());
    assertNotEquals(new DocSetQuery(new int[] {1, 2}), new DocSetQuery(new int[] {1, 2, 3}));
    assertTrue(new DocSetQuery(new int[] {1}).toString().contains("1 docs"));
  }
}
