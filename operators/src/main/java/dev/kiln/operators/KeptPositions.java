package dev.kiln.operators;

import dev.kiln.index.ShardSchema;
import dev.kiln.model.RecordPosition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * Where an incremental build's shard writer read the unchanged records of the documents it keeps, in
 * 8 bytes a document ({@link ContinuedShard} holds them beside the kept ids): each file once, by index,
 * and the record's offset in it. Compared with where the base records each document ({@link
 * RecordedFiles}) to find the records that moved between files.
 */
final class KeptPositions {
  /** An offset past 2³² − 2: such a record, should it have moved, is not copied to its new position. */
  private static final long UNKNOWN_OFFSET = 0xFFFF_FFFFL;

  private final Map<String, Integer> fileIndex = new HashMap<>();
  private final List<String> files = new ArrayList<>();

  /** {@code at} as 8 bytes: the file's index in the high 32 bits, the offset in the low 32. */
  long of(RecordPosition at) {
    int file = fileIndex.computeIfAbsent(at.sourceUri(), uri -> {
      files.add(uri);
      return files.size() - 1;
    });
    long offset = at.offset();
    return ((long) file << 32) | (offset >= 0 && offset < UNKNOWN_OFFSET ? offset : UNKNOWN_OFFSET);
  }

  /** Whether {@code kept} ({@link #of}) holds the record's offset, not {@link #UNKNOWN_OFFSET}. */
  static boolean offsetKnown(long kept) {
    return (kept & UNKNOWN_OFFSET) != UNKNOWN_OFFSET;
  }

  /** The position {@code kept} ({@link #of}, its offset known) stands for. */
  RecordPosition position(long kept) {
    return new RecordPosition(files.get((int) (kept >> 32)), kept & UNKNOWN_OFFSET);
  }

  /** The recorded files of {@code leaf}'s chunks, to compare with; {@code null} when no position was kept. */
  RecordedFiles recorded(LeafReader leaf) throws IOException {
    return files.isEmpty() ? null : new RecordedFiles(leaf, files);
  }

  /** One base leaf's recorded record files, as ords of its source doc values, for every chunk at once. */
  static final class RecordedFiles {
    private final LeafReader leaf;
    private final int[] ordOf;
    private final int[] fileOrd;

    private RecordedFiles(LeafReader leaf, List<String> files) throws IOException {
      this.leaf = leaf;
      ordOf = new int[leaf.maxDoc()];
      Arrays.fill(ordOf, -1);
      SortedDocValues sources = leaf.getSortedDocValues(ShardSchema.SOURCE);
      fileOrd = new int[files.size()];
      Arrays.fill(fileOrd, -2);
      if (sources != null) {
        for (int i = 0; i < files.size(); i++) {
          int ord = sources.lookupTerm(new BytesRef(files.get(i)));
          fileOrd[i] = ord >= 0 ? ord : -2; // never -1, the ord of a chunk without a position
        }
        for (int d = sources.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = sources.nextDoc()) {
          ordOf[d] = sources.ordValue();
        }
      }
    }

    /** Whether the document's first live chunk here records another file than the one {@code kept} names. */
    boolean movedFrom(PostingsEnum chunks, long kept) throws IOException {
      int file = (int) (kept >> 32);
      Bits live = leaf.getLiveDocs();
      for (int d = chunks.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = chunks.nextDoc()) {
        if (live == null || live.get(d)) {
          return ordOf[d] != fileOrd[file];
        }
      }
      return false;
    }
  }
}
