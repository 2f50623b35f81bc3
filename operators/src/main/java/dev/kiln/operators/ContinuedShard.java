package dev.kiln.operators;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.index.ShardSchema;
import dev.kiln.index.SourcePositions;
import dev.kiln.index.store.BaseOverlayDirectory;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.ParentChange;
import dev.kiln.model.RecordPosition;
import dev.kiln.operators.fs.BaseShard;
import dev.kiln.vectors.KeyBits;
import dev.kiln.vectors.KeyLongMap;
import dev.kiln.vectors.KeySet;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;

/**
 * One shard that a {@link ContinuingShardWriterFunction} writes over its base: the writer (the base's
 * segments hard-linked), a reader of the base, and the document ids handled so far.
 *
 * <p>In an incremental build duplicate ids are resolved here, as a full build's writer resolves them
 * ({@link WriterDuplicates}, same rule): an unchanged record takes part as a record of no pieces. The
 * base chunks of a document go when its first fresh chunk wins (a Lucene delete affects only documents
 * added before it); should an unchanged record of the same id turn out to come first after all, the
 * fresh chunks go and the base chunks are copied back from the base's segments when the input ends
 * ({@link ShardIndexWriter#restore}) — a corpus that repeats an id with different contents, nothing a
 * clean corpus pays for.
 */
final class ContinuedShard implements Closeable {
  /** The write stage's counters a shard keeps true. */
  record Counters(LongCounter written, LongCounter kept, LongCounter pruned, LongCounter unknownDeletes,
      LongCounter removedChunks) {}

  private final ShardIndexWriter writer;
  private final DirectoryReader base;
  private final Counters counters;
  // 128 bits a document id (KeySet), not Strings: an incremental build keeps nearly every document.
  private final KeySet fresh = new KeySet();
  private final KeySet removed = new KeySet();
  /**
   * Kept documents, each with where its unchanged record was read ({@link KeptPositions#of}; -1: at its
   * recorded position, in a file left unread).
   */
  private final KeyLongMap keptIds = new KeyLongMap();
  /** Ids whose deleted base chunks come back: their unchanged record won over fresh ones (rare). */
  private final Set<String> restore = new HashSet<>();
  /** Where the kept documents' unchanged records were read, each file once. */
  private final KeptPositions positions = new KeptPositions();
  /**
   * Unchanged documents whose record was read from another file than the base records, and whose chunks
   * could not be copied with the new position ({@link BasePrune}).
   */
  private long moved;
  /** Unchanged documents whose chunks were copied with their record's new position ({@link BasePrune}). */
  private long relocated;
  /**
   * With a parents docstore beside the shard (an incremental build under parent-child chunking): the ids
   * whose base chunks this shard deleted, and the ids whose fresh chunks it dropped, so that the docstore
   * writer can follow this shard's decisions ({@link #parentChanges}); {@code null} otherwise.
   */
  private Set<String> baseGone;
  private Set<String> freshDropped;

  private ContinuedShard(ShardIndexWriter writer, DirectoryReader base, Counters counters) {
    this.writer = writer;
    this.base = base;
    this.counters = counters;
  }

  /**
   * @param base the base shard (a local directory, or remote files read on demand), or {@code null} to
   *     start from an empty shard
   * @param keepSegments the base's segments are kept, not merged down (a build continuing a base)
   */
  static ContinuedShard open(Path dir, BaseShard base, IndexConfig config, int dimension, boolean keepSegments,
      Counters counters) throws IOException {
    if (base == null) {
      return new ContinuedShard(new ShardIndexWriter(dir, config, dimension), null, counters);
    }
    ShardIndexWriter writer;
    Directory baseView;
    switch (base) {
      case BaseShard.Local local -> {
        if (!Files.isDirectory(local.directory())) {
          throw new IOException("a shard of the base snapshot is missing: " + local.directory());
        }
        writer = ShardIndexWriter.continuing(dir, local.directory(), config, dimension, !keepSegments);
        baseView = FSDirectory.open(local.directory());
      }
      case BaseShard.Remote remote -> {
        writer = ShardIndexWriter.continuingOver(dir, remote.files(), config, dimension, !keepSegments);
        // The reader of the base shares the writer's fetched blocks: each is read once.
        baseView = new BaseOverlayDirectory(new ByteBuffersDirectory(), remote.files());
      }
    }
    try {
      return new ContinuedShard(writer, DirectoryReader.open(baseView), counters);
    } catch (IOException | RuntimeException e) {
      try {
        writer.close();
      } catch (IOException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  ShardIndexWriter writer() {
    return writer;
  }

  /** Records what {@link #parentChanges} needs: called before any input, when a docstore follows this shard. */
  void trackParents() {
    baseGone = new HashSet<>();
    freshDropped = new HashSet<>();
  }

  /**
   * After {@link #finishIncremental}: what the parents docstore must do so that its documents are this
   * shard's, document by document. A document whose base chunks went (replaced by fresh ones, or pruned)
   * loses its base parents ({@link ParentChange#remove}); one whose base chunks stayed although a fresh
   * record of it was cut (that record lost to the unchanged one, as duplicates are resolved) keeps its
   * base parents and loses the fresh ones ({@link ParentChange#baseWins}). Documents this shard kept
   * untouched, read or unread, need no message: their base parents stay. Fresh parents of a document
   * whose fresh chunks won are the docstore writer's own to resolve (same records, same rule).
   */
  List<ParentChange> parentChanges() {
    if (baseGone == null) {
      throw new IllegalStateException("the shard did not track what its docstore needs");
    }
    List<ParentChange> out = new ArrayList<>();
    for (String id : baseGone) {
      if (!restore.contains(id)) {
        out.add(ParentChange.remove(id));
      }
    }
    Set<String> baseWins = new HashSet<>(restore);
    for (String id : freshDropped) {
      long[] k = id(id);
      if (keptIds.get(k[0], k[1]) != KeyLongMap.MISSING && !fresh.contains(k)) {
        baseWins.add(id); // the unchanged record came first: the fresh one was dropped, the base never deleted
      }
    }
    baseWins.forEach(id -> out.add(ParentChange.baseWins(id)));
    return out;
  }

  /** A changelog build's fresh chunk: its document's base chunks go with the first one. */
  void add(EmbeddedChunk chunk) throws IOException {
    String docId = chunk.chunk().docId();
    long[] key = id(docId);
    if (fresh.add(key)) {
      removeFromBase(docId, key, false);
    }
    writer.add(chunk);
    counters.written().add(1);
  }

  /** An incremental build's fresh chunk, once {@link WriterDuplicates} decided on it (and counted it). */
  void add(EmbeddedChunk chunk, DocumentWinners.Decision decision) throws IOException {
    String docId = chunk.chunk().docId();
    switch (decision.action()) {
      case DROP -> {
        if (freshDropped != null) {
          freshDropped.add(docId);
        }
        return;
      }
      case WRITE -> {
        long[] key = id(docId);
        if (fresh.add(key)) {
          removeFromBase(docId, key, false);
        }
      }
      case REPLACE -> {
        if (decision.discarded() == 0) {
          // The former winner was an unchanged record: its base chunks go after all (just below).
          counters.kept().add(-1);
          restore.remove(docId);
        } else {
          writer.deleteDocument(docId); // the former winner's fresh chunks; the base's went with its first
        }
        long[] key = id(docId);
        fresh.add(key);
        removeFromBase(docId, key, false);
      }
    }
    writer.add(chunk);
  }

  /** An unchanged record of {@code docId} offered from a file left unread: its recorded position is its own. */
  void unchanged(String docId, DocumentWinners.Decision decision) throws IOException {
    unchanged(docId, id(docId), decision, -1L);
  }

  /**
   * An incremental build's unchanged record of {@code docId}, read at {@code at}, once
   * {@link WriterDuplicates} decided on it. Where it was read is compared with the position the base
   * records for the document when the base is pruned ({@link BasePrune}).
   */
  void unchanged(String docId, DocumentWinners.Decision decision, RecordPosition at) throws IOException {
    unchanged(docId, id(docId), decision, at);
  }

  /** As above, with the id's {@link KeyBits#ofId} already taken (the writer hashes each kept id once). */
  void unchanged(String docId, long[] key, DocumentWinners.Decision decision, RecordPosition at) throws IOException {
    unchanged(docId, key, decision, at == null ? -1L : positions.of(at));
  }

  private void unchanged(String docId, long[] key, DocumentWinners.Decision decision, long position)
      throws IOException {
    switch (decision.action()) {
      case DROP -> {}
      case WRITE -> {
        keptIds.put(key[0], key[1], position);
        counters.kept().add(1);
      }
      case REPLACE -> {
        if (decision.discarded() > 0) {
          // A fresh record had won so far: its chunks go, and the base chunks deleted for them come back.
          writer.deleteDocument(docId);
          restore.add(docId);
          counters.kept().add(1);
        }
        keptIds.put(key[0], key[1], position);
      }
    }
  }

  /** A document id's bits in the sets above: always hashed ({@link KeyBits#ofId}), never read as hex. */
  private static long[] id(String docId) {
    return KeyBits.ofId(docId);
  }

  /** Unchanged documents kept with a recorded position in another file than their record's. */
  long moved() {
    return moved;
  }

  /** Unchanged documents whose chunks were copied to their record's new file ({@link BasePrune}). */
  long relocated() {
    return relocated;
  }

  /**
   * An incremental build's corpus files left unread because they are unchanged since the base
   * ({@code corpus-files.tsv}): each base document read from one takes part as the unchanged record it
   * would have been, at its recorded position, so duplicate ids resolve as if the file had been read.
   *
   * @return the documents offered (the records of those files in this shard)
   */
  long keepUnread(Set<String> files, WriterDuplicates duplicates) throws IOException {
    if (base == null || files.isEmpty()) {
      return 0;
    }
    KeySet offered = new KeySet();
    long[] n = {0};
    SourcePositions.visit(base, files, (id, uri, offset) -> {
      long[] k = KeyBits.ofId(id.bytes, id.offset, id.length);
      if (offered.add(k[0], k[1])) {
        String docId = id.utf8ToString();
        unchanged(docId, k, duplicates.unchanged(docId, k, new RecordPosition(uri, offset)), -1L);
        n[0]++;
      }
    });
    return n[0];
  }

  /** A changelog build: the document was deleted, or upserted (its fresh chunks come separately). */
  void remove(String docId, boolean deleted) throws IOException {
    long[] key = id(docId);
    if (!fresh.contains(key)) {
      removeFromBase(docId, key, deleted);
    }
  }

  /** An incremental build's end of input: restores what must come back, removes what left the corpus. */
  void finishIncremental() throws IOException {
    if (base == null) {
      return;
    }
    if (!restore.isEmpty()) {
      long restored = writer.restore(base, restore);
      counters.removedChunks().add(-restored);
    }
    BasePrune prune = new BasePrune(base, writer, counters, fresh, removed, keptIds, positions,
        baseGone == null ? id -> {} : baseGone::add);
    prune.run();
    moved = prune.moved();
    relocated = prune.relocated();
  }

  /** Removes the base chunks of {@code docId} (its {@link #id} bits: {@code key}) once. */
  private void removeFromBase(String docId, long[] key, boolean deleted) throws IOException {
    if (!removed.add(key)) {
      return;
    }
    long n = base == null ? 0 : liveChunks(base, docId);
    if (n > 0) {
      writer.deleteDocument(docId);
      counters.removedChunks().add(n);
      if (baseGone != null) {
        baseGone.add(docId);
      }
    } else if (deleted) {
      counters.unknownDeletes().add(1);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      writer.close();
    } finally {
      if (base != null) {
        base.close();
        base.directory().close();
      }
    }
  }

  /** Live chunks of {@code docId} in {@code reader}. */
  static long liveChunks(DirectoryReader reader, String docId) throws IOException {
    long n = 0;
    Term term = new Term(ShardSchema.DOC_ID, docId);
    for (LeafReaderContext leaf : reader.leaves()) {
      PostingsEnum p = leaf.reader().postings(term, PostingsEnum.NONE);
      if (p == null) {
        continue;
      }
      Bits live = leaf.reader().getLiveDocs();
      for (int d = p.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = p.nextDoc()) {
        if (live == null || live.get(d)) {
          n++;
        }
      }
    }
    return n;
  }
}
