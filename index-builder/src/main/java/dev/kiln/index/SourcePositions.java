package dev.kiln.index;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * The record positions ({@link ShardSchema#SOURCE}, {@link ShardSchema#SOURCE_OFFSET}) of a shard's live
 * documents: what an incremental build needs to keep the documents of the corpus files it does not read,
 * as if it had read them and found every record unchanged. Read from doc values and the document-id
 * terms alone; no stored field is decompressed. Each leaf costs 12 bytes per Lucene document while it is
 * visited.
 */
public final class SourcePositions {
  private SourcePositions() {}

  /** Receives one live document of a visited file. */
  @FunctionalInterface
  public interface Visitor {
    void accept(BytesRef docId, String sourceUri, long offset) throws IOException;
  }

  /** Whether every segment with live chunks in {@code shardDir} records its records' positions. */
  public static boolean present(Path shardDir) throws IOException {
    return ShardSchema.onEveryLiveSegment(shardDir, ShardSchema.SOURCE, ShardSchema.SOURCE_OFFSET);
  }

  /**
   * Calls {@code visitor} for every live document of {@code reader} whose record was read from one of
   * {@code files}, once per leaf the document has live chunks in (the caller deduplicates ids: a
   * document's chunks may lie in several segments), with the position of its record.
   *
   * @throws IOException also when a leaf with live chunks lacks positions (a shard written before they
   *     existed): the caller decided to skip files on the promise that every leaf has them
   */
  public static void visit(DirectoryReader reader, Set<String> files, Visitor visitor) throws IOException {
    for (LeafReaderContext leaf : reader.leaves()) {
      visitLeaf(leaf.reader(), files, visitor);
    }
  }

  private static void visitLeaf(LeafReader r, Set<String> files, Visitor visitor) throws IOException {
    if (r.numDocs() == 0) {
      return;
    }
    SortedDocValues sources = r.getSortedDocValues(ShardSchema.SOURCE);
    NumericDocValues offsets = r.getNumericDocValues(ShardSchema.SOURCE_OFFSET);
    if (sources == null || offsets == null) {
      throw new IOException("a segment with " + r.numDocs() + " live chunks has no record positions ("
          + ShardSchema.SOURCE + "): written before they existed");
    }
    // Which of the leaf's files are visited: decided once per distinct file, not per chunk.
    String[] uris = new String[sources.getValueCount()];
    boolean any = false;
    for (int ord = 0; ord < uris.length; ord++) {
      String uri = sources.lookupOrd(ord).utf8ToString();
      if (files.contains(uri)) {
        uris[ord] = uri;
        any = true;
      }
    }
    if (!any) {
      return;
    }
    Bits live = r.getLiveDocs();
    int[] ordOf = new int[r.maxDoc()];
    Arrays.fill(ordOf, -1);
    long[] offsetOf = new long[r.maxDoc()];
    for (int d = sources.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = sources.nextDoc()) {
      int ord = sources.ordValue();
      if (uris[ord] != null && (live == null || live.get(d))) {
        if (!offsets.advanceExact(d)) {
          throw new IOException("chunk " + d + " of a segment has a source file but no offset");
        }
        ordOf[d] = ord;
        offsetOf[d] = offsets.longValue();
      }
    }
    Terms ids = r.terms(ShardSchema.DOC_ID);
    if (ids == null) {
      return;
    }
    TermsEnum te = ids.iterator();
    PostingsEnum postings = null;
    for (BytesRef id = te.next(); id != null; id = te.next()) {
      postings = te.postings(postings, PostingsEnum.NONE);
      for (int d = postings.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = postings.nextDoc()) {
        if (ordOf[d] >= 0) {
          visitor.accept(id, uris[ordOf[d]], offsetOf[d]);
          break;
        }
      }
    }
  }
}
