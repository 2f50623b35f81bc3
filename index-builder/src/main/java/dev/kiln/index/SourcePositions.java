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
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
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

  /** Whether every live chunk in {@code shardDir} records its record's position (see {@link #within}). */
  public static boolean present(Path shardDir) throws IOException {
    return within(shardDir, null);
  }

  /**
   * Whether every live chunk in {@code shardDir} records its record's position in one of {@code files}
   * ({@code null}: in any file). What leaving a listed file unread relies on: each of the file's
   * records is a live document of the shard at its recorded position. Checked chunk by chunk, not by
   * the field's presence in a segment: a segment merged from corpus chunks and chunks without a
   * position (a base's written before positions existed) has the field, and a chunk kept from a
   * changelog build records a Kafka partition, which no corpus file left unread would ever keep. One
   * pass over the source doc values of each segment, no stored field read.
   */
  public static boolean within(Path shardDir, Set<String> files) throws IOException {
    try (FSDirectory dir = FSDirectory.open(shardDir)) {
      return within(dir, files);
    }
  }

  /** As {@link #within(Path, Set)} for a shard opened as a Lucene directory. */
  public static boolean within(Directory dir, Set<String> files) throws IOException {
    try (DirectoryReader reader = DirectoryReader.open(dir)) {
      for (LeafReaderContext leaf : reader.leaves()) {
        if (!everyLiveChunkWithin(leaf.reader(), files)) {
          return false;
        }
      }
      return true;
    }
  }

  private static boolean everyLiveChunkWithin(LeafReader r, Set<String> files) throws IOException {
    if (r.numDocs() == 0) {
      return true;
    }
    SortedDocValues sources = r.getSortedDocValues(ShardSchema.SOURCE);
    NumericDocValues offsets = r.getNumericDocValues(ShardSchema.SOURCE_OFFSET);
    if (sources == null || offsets == null) {
      return false;
    }
    // Decided once per distinct source, not per chunk.
    boolean[] listed = new boolean[sources.getValueCount()];
    for (int ord = 0; ord < listed.length; ord++) {
      listed[ord] = files == null || files.contains(sources.lookupOrd(ord).utf8ToString());
    }
    // The writer adds both fields to a chunk or neither: counting one is enough.
    Bits live = r.getLiveDocs();
    int positioned = 0;
    for (int d = sources.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = sources.nextDoc()) {
      if (live == null || live.get(d)) {
        if (!listed[sources.ordValue()]) {
          return false;
        }
        positioned++;
      }
    }
    return positioned == r.numDocs();
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
