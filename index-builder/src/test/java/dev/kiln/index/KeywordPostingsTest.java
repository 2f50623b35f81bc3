package dev.kiln.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

class KeywordPostingsTest {
  private final KeywordPostings postings = new KeywordPostings(
      new BytesRef[] {new BytesRef("file:/a"), new BytesRef("file:/c")}, new int[][] {{1, 4, 9}, {2}});

  @Test
  void termsComeInOrderWithTheirDocumentsAndStatistics() throws Exception {
    TermsEnum te = postings.iterator();
    assertEquals(new BytesRef("file:/a"), te.next());
    assertEquals(3, te.docFreq());
    PostingsEnum pe = te.postings(null, PostingsEnum.NONE);
    assertEquals(1, pe.nextDoc());
    assertEquals(9, pe.advance(5));
    assertEquals(DocIdSetIterator.NO_MORE_DOCS, pe.nextDoc());
    assertEquals(new BytesRef("file:/c"), te.next());
    assertNull(te.next());
    assertEquals(4, postings.getDocCount());
    assertEquals(2, postings.size());
  }

  @Test
  void seekCeilFindsExactTermsTheNextOneOrTheEnd() throws Exception {
    TermsEnum te = postings.iterator();
    assertEquals(TermsEnum.SeekStatus.FOUND, te.seekCeil(new BytesRef("file:/c")));
    assertEquals(TermsEnum.SeekStatus.NOT_FOUND, te.seekCeil(new BytesRef("file:/b")));
    assertEquals(new BytesRef("file:/c"), te.term());
    assertEquals(TermsEnum.SeekStatus.END, te.seekCeil(new BytesRef("file:/d")));
    assertEquals(true, te.seekExact(new BytesRef("file:/a")));
    assertEquals(1, te.postings(null, PostingsEnum.NONE).nextDoc());
  }
}
