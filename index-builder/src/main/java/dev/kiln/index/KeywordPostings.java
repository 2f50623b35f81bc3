package dev.kiln.index;

import java.io.IOException;
import org.apache.lucene.index.BaseTermsEnum;
import org.apache.lucene.index.ImpactsEnum;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SlowImpactsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.util.BytesRef;

/**
 * The postings of a keyword field (indexed with documents only, one value a document) given in
 * memory: terms in Lucene's order (UTF-8 bytes) and each term's documents, ascending. What a view of
 * a segment ({@link RelocatedChunks}) shows in place of a field whose values it rewrites, so that a
 * copy made through {@code addIndexes} indexes the new values.
 */
final class KeywordPostings extends Terms {
  private final BytesRef[] terms;
  private final int[][] docs;
  private final int docCount;

  /**
   * @param terms sorted as {@link BytesRef#compareTo} sorts, no duplicates
   * @param docs each term's documents, ascending, no document under two terms
   */
  KeywordPostings(BytesRef[] terms, int[][] docs) {
    this.terms = terms;
    this.docs = docs;
    int n = 0;
    for (int[] d : docs) {
      n += d.length;
    }
    this.docCount = n;
  }

  @Override
  public TermsEnum iterator() {
    return new Enum();
  }

  @Override
  public long size() {
    return terms.length;
  }

  @Override
  public long getSumTotalTermFreq() {
    return docCount;
  }

  @Override
  public long getSumDocFreq() {
    return docCount;
  }

  @Override
  public int getDocCount() {
    return docCount;
  }

  @Override
  public boolean hasFreqs() {
    return false;
  }

  @Override
  public boolean hasOffsets() {
    return false;
  }

  @Override
  public boolean hasPositions() {
    return false;
  }

  @Override
  public boolean hasPayloads() {
    return false;
  }

  private final class Enum extends BaseTermsEnum {
    private int ord = -1;

    @Override
    public BytesRef next() {
      if (ord + 1 >= terms.length) {
        ord = terms.length;
        return null;
      }
      return terms[++ord];
    }

    @Override
    public SeekStatus seekCeil(BytesRef text) {
      int lo = 0;
      int hi = terms.length - 1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        int c = terms[mid].compareTo(text);
        if (c == 0) {
          ord = mid;
          return SeekStatus.FOUND;
        } else if (c < 0) {
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      ord = lo;
      return lo >= terms.length ? SeekStatus.END : SeekStatus.NOT_FOUND;
    }

    @Override
    public void seekExact(long target) {
      ord = (int) target;
    }

    @Override
    public BytesRef term() {
      return terms[ord];
    }

    @Override
    public long ord() {
      return ord;
    }

    @Override
    public int docFreq() {
      return docs[ord].length;
    }

    @Override
    public long totalTermFreq() {
      return docs[ord].length;
    }

    @Override
    public PostingsEnum postings(PostingsEnum reuse, int flags) {
      return new Docs(docs[ord]);
    }

    @Override
    public ImpactsEnum impacts(int flags) throws IOException {
      return new SlowImpactsEnum(postings(null, flags));
    }
  }

  /** One term's documents; every frequency 1, no positions (the field indexes documents only). */
  private static final class Docs extends PostingsEnum {
    private final int[] docs;
    private int i = -1;

    Docs(int[] docs) {
      this.docs = docs;
    }

    @Override
    public int docID() {
      return i < 0 ? -1 : i >= docs.length ? NO_MORE_DOCS : docs[i];
    }

    @Override
    public int nextDoc() {
      i++;
      return docID();
    }

    @Override
    public int advance(int target) {
      while (docID() < target) {
        i++;
      }
      return docID();
    }

    @Override
    public long cost() {
      return docs.length;
    }

    @Override
    public int freq() {
      return 1;
    }

    @Override
    public int nextPosition() {
      return -1;
    }

    @Override
    public int startOffset() {
      return -1;
    }

    @Override
    public int endOffset() {
      return -1;
    }

    @Override
    public BytesRef getPayload() {
      return null;
    }
  }
}
