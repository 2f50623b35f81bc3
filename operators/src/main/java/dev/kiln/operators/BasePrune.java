package dev.kiln.operators;

import dev.kiln.index.RelocatedChunks;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.index.ShardSchema;
import dev.kiln.vectors.KeyBits;
import dev.kiln.vectors.KeyLongMap;
import dev.kiln.vectors.KeySet;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;

/**
 * The last pass of an incremental build over one {@link ContinuedShard}'s base: removes the base
 * documents that left the corpus and relocates the kept ones whose record moved to another file. Run
 * once, when the input ends; a class of its own because it reads the whole base's document ids twice
 * and needs none of the per-record bookkeeping that decides what is kept, only its result.
 */
final class BasePrune {
  private final DirectoryReader base;
  private final ShardIndexWriter writer;
  private final ContinuedShard.Counters counters;
  /** Ids with fresh chunks: never pruned nor relocated. */
  private final KeySet fresh;
  /** Ids whose base chunks are already deleted (shared with the shard: each is deleted once). */
  private final KeySet removed;
  private final KeyLongMap keptIds;
  private final KeptPositions positions;
  /** Told each pruned document's id (the parents docstore follows the shard). */
  private final Consumer<String> pruned;
  private PostingsEnum postings;
  private long moved;
  private long relocated;

  BasePrune(DirectoryReader base, ShardIndexWriter writer, ContinuedShard.Counters counters, KeySet fresh,
      KeySet removed, KeyLongMap keptIds, KeptPositions positions, Consumer<String> pruned) {
    this.base = base;
    this.writer = writer;
    this.counters = counters;
    this.fresh = fresh;
    this.removed = removed;
    this.keptIds = keptIds;
    this.positions = positions;
    this.pruned = pruned;
  }

  /**
   * Removes every base document neither kept nor re-added: it left the corpus, or no longer parses. On
   * the same pass over the base's document ids, finds the kept documents whose unchanged record was
   * read from another file than the one the base records for them: the record moved between files (a
   * re-partitioned export), or the base kept the document from a changelog build. Their chunks must not
   * keep the old position: were the next build to leave the record's new file unread, no file would
   * keep the document ({@link ContinuedShard#keepUnread} goes by the recorded file). So they are copied
   * with the new position ({@link RelocatedChunks}, {@link #relocated()}) after their base copies are
   * deleted. Where
   * that cannot be done (a base segment without position fields, an offset past 2³² − 2) the document
   * keeps the old position and counts in {@link #moved()}: the writer then counts the shard in {@code
   * shards.without-positions}, and the next build reads every file. Positions in the same file are not
   * compared: an offset decides only between duplicates of one file, and those are read, or left unread,
   * together.
   */
  void run() throws IOException {
    KeySet movedIds = new KeySet();
    boolean relocatable = true;
    for (LeafReaderContext leaf : base.leaves()) {
      Terms terms = leaf.reader().terms(ShardSchema.DOC_ID);
      if (terms == null) {
        continue;
      }
      relocatable &= leaf.reader().numDocs() == 0 || RelocatedChunks.relocatable(leaf.reader());
      KeptPositions.RecordedFiles recorded = positions.recorded(leaf.reader());
      TermsEnum te = terms.iterator();
      for (BytesRef term = te.next(); term != null; term = te.next()) {
        long[] k = KeyBits.ofId(term.bytes, term.offset, term.length);
        long kept = keptIds.get(k[0], k[1]);
        if (kept >= 0 && recorded != null && !fresh.contains(k[0], k[1])) {
          postings = te.postings(postings, PostingsEnum.NONE);
          if (recorded.movedFrom(postings, kept)) {
            movedIds.add(k[0], k[1]);
          }
        }
        if (kept == KeyLongMap.MISSING && !fresh.contains(k[0], k[1]) && removed.add(k[0], k[1])) {
          String docId = term.utf8ToString();
          long n = ContinuedShard.liveChunks(base, docId);
          if (n > 0) {
            writer.deleteDocument(docId);
            counters.removedChunks().add(n);
            counters.pruned().add(1);
            pruned.accept(docId);
          }
        }
      }
    }
    if (movedIds.size() > 0) {
      relocate(movedIds, relocatable);
    }
  }

  /**
   * Copies every live base chunk of the {@code movedIds} with its record's new position, in every
   * segment it has chunks in (a second pass over the ids: a document's chunks may span segments, and
   * all of them go when it is deleted); documents with an offset too large to keep, or every one when
   * a base segment has no position fields, stay as they are and count in {@link #moved()}.
   */
  private void relocate(KeySet movedIds, boolean relocatable) throws IOException {
    KeySet deleted = new KeySet();
    List<RelocatedChunks> copies = new ArrayList<>();
    for (LeafReaderContext leaf : base.leaves()) {
      Terms terms = leaf.reader().terms(ShardSchema.DOC_ID);
      if (terms == null) {
        continue;
      }
      Bits live = leaf.reader().getLiveDocs();
      FixedBitSet chunks = null;
      long[] at = null; // each copied chunk's position, as keptIds holds it: 8 bytes a chunk of a leaf with moves
      TermsEnum te = terms.iterator();
      for (BytesRef term = te.next(); term != null; term = te.next()) {
        long[] k = KeyBits.ofId(term.bytes, term.offset, term.length);
        if (!movedIds.contains(k[0], k[1])) {
          continue;
        }
        long kept = keptIds.get(k[0], k[1]);
        if (!relocatable || !KeptPositions.offsetKnown(kept)) {
          if (deleted.add(k[0], k[1])) {
            moved++;
          }
          continue;
        }
        if (deleted.add(k[0], k[1])) {
          writer.deleteDocument(term.utf8ToString());
          relocated++;
        }
        if (chunks == null) {
          chunks = new FixedBitSet(leaf.reader().maxDoc());
          at = new long[leaf.reader().maxDoc()];
        }
        postings = te.postings(postings, PostingsEnum.NONE);
        for (int d = postings.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = postings.nextDoc()) {
          if (live == null || live.get(d)) {
            chunks.set(d);
            at[d] = kept;
          }
        }
      }
      if (chunks != null && chunks.cardinality() > 0) {
        long[] where = at;
        copies.add(RelocatedChunks.of(leaf.reader(), chunks, d -> positions.position(where[d])));
      }
    }
    writer.addCopies(copies);
  }

  /** Unchanged documents kept with a recorded position in another file than their record's. */
  long moved() {
    return moved;
  }

  /** Unchanged documents whose chunks were copied to their record's new file. */
  long relocated() {
    return relocated;
  }
}
