package dev.kiln.operators;

import dev.kiln.model.RecordPosition;
import dev.kiln.snapshot.Checksums;
import dev.kiln.vectors.KeyBits;
import dev.kiln.vectors.KeySet;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A build's duplicate-id resolution, done where the pieces of documents (chunks, parents) are
 * written instead of in a keyed stage in front of the chunker: a keyed stage in a Flink batch job sorts
 * its whole input first, so no shard writer could start before every record had been read, parsed and
 * sorted (text and vectors: 2.5 GB at a million chunks).
 *
 * <p><b>Rule</b>: of the records that share a document id,
 * the one first in (source URI, offset) order wins; every other one is a loser, quarantined once as
 * {@code duplicate_id}. Pieces arrive in any order, interleaved across records, so the writer is told
 * for each piece what to do: {@link Action#WRITE} it; {@link Action#REPLACE}: it comes from a record
 * before the current winner, so delete the id's pieces written so far (a Lucene delete by term affects
 * only documents added before it) and write this one; or {@link Action#DROP} it: its record comes after
 * the winner. The outcome depends only on positions, never on arrival order. A record that yields no
 * piece takes no part.
 *
 * <p>Memory: per document id 128 bits of its SHA-256 ({@link KeyBits#ofId}: a hash, not a prefix of the id: two ids that
 * differ only late must not collide), the winner's source (an index into the distinct source URIs seen)
 * and offset, and its piece count: 32 bytes a slot, 43–85 bytes an id as the table fills and doubles;
 * plus each distinct source URI once (a JSON-lines or Parquet corpus has few; a tree of one document per
 * file has one per document) and 16 bytes per losing record. Pieces without a position ({@code null}) are written as they come.
 */
public final class DocumentWinners {
  /** What the writer does with one arriving piece. */
  public enum Action {
    WRITE,
    REPLACE,
    DROP
  }

  /**
   * @param action what to do with the piece
   * @param loser a record that has just lost (quarantine it), or {@code null}: no new loser
   * @param winner the id's winning record after this piece
   * @param discarded pieces of the former winner the writer deletes ({@link Action#REPLACE})
   */
  public record Decision(Action action, RecordPosition loser, RecordPosition winner, long discarded) {
    static final Decision WRITE = new Decision(Action.WRITE, null, null, 0);
  }

  private static final int MIN_CAPACITY = 1 << 10;

  private final MessageDigest sha = Checksums.newDigest();
  private final Map<String, Integer> sourceIds = new HashMap<>();
  private final List<String> sources = new ArrayList<>();
  private final KeySet losers = new KeySet();
  private long[] hi = new long[MIN_CAPACITY];
  private long[] lo = new long[MIN_CAPACITY];
  private long[] offsets = new long[MIN_CAPACITY];
  /** Index into {@link #sources} plus one; 0 marks a free slot. */
  private int[] source = new int[MIN_CAPACITY];
  private int[] pieces = new int[MIN_CAPACITY];
  private int size;

  /** Decides what happens to one piece of document {@code docId} cut from the record at {@code at}. */
  public Decision offer(String docId, RecordPosition at) {
    if (at == null) {
      return Decision.WRITE;
    }
    return offer(docId, at, 1);
  }

  /**
   * Decides on an incremental build's unchanged record of {@code docId} at {@code at}, whose chunks are
   * the base snapshot's and are not written again: it takes part like a record of no pieces. So a
   * {@link Action#REPLACE} with nothing {@code discarded} says that the former winner was such a
   * record (a record cut into pieces has at least one), and {@link Action#WRITE} that it wins for now.
   */
  public Decision offerUnchanged(String docId, RecordPosition at) {
    return offerUnchanged(docId, KeyBits.ofId(docId), at);
  }

  /** As above, with the id's {@link KeyBits#ofId} already taken. */
  public Decision offerUnchanged(String docId, long[] key, RecordPosition at) {
    return offer(docId, key, Objects.requireNonNull(at, "at"), 0);
  }

  private Decision offer(String docId, RecordPosition at, int piecesOfRecord) {
    return offer(docId, KeyBits.ofId(docId), at, piecesOfRecord);
  }

  private Decision offer(String docId, long[] key, RecordPosition at, int piecesOfRecord) {
    long h0 = key[0];
    long h1 = key[1];
    int slot = find(h0, h1);
    if (source[slot] == 0) {
      put(slot, h0, h1, at, piecesOfRecord);
      return Decision.WRITE;
    }
    int atSource = sourceId(at.sourceUri());
    if (source[slot] == atSource && offsets[slot] == at.offset()) {
      pieces[slot] += piecesOfRecord;
      return Decision.WRITE;
    }
    RecordPosition winner = new RecordPosition(sources.get(source[slot] - 1), offsets[slot]);
    if (at.precedes(winner)) {
      long discarded = pieces[slot];
      source[slot] = atSource;
      offsets[slot] = at.offset();
      pieces[slot] = piecesOfRecord;
      markLost(docId, winner);
      return new Decision(Action.REPLACE, winner, at, discarded);
    }
    return new Decision(Action.DROP, markLost(docId, at) ? at : null, winner, 0);
  }

  /** Document ids seen. */
  public int size() {
    return size;
  }

  /** Records the loss of {@code record}; false when it had lost before. */
  private boolean markLost(String docId, RecordPosition record) {
    ByteBuffer h = ByteBuffer.wrap(sha.digest((docId + '\0' + record.sourceUri() + '\0' + record.offset())
        .getBytes(StandardCharsets.UTF_8)));
    return losers.add(h.getLong(0), h.getLong(8));
  }

  private int find(long h0, long h1) {
    int mask = source.length - 1;
    int slot = (int) (h0 ^ (h0 >>> 32)) & mask;
    while (source[slot] != 0 && (hi[slot] != h0 || lo[slot] != h1)) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  private void put(int slot, long h0, long h1, RecordPosition at, int piecesOfRecord) {
    hi[slot] = h0;
    lo[slot] = h1;
    offsets[slot] = at.offset();
    source[slot] = sourceId(at.sourceUri());
    pieces[slot] = piecesOfRecord;
    if (++size * 4 > source.length * 3) {
      grow();
    }
  }

  private int sourceId(String uri) {
    Integer id = sourceIds.get(uri);
    if (id == null) {
      sources.add(uri);
      id = sources.size();
      sourceIds.put(uri, id);
    }
    return id;
  }

  private void grow() {
    long[] oldHi = hi;
    long[] oldLo = lo;
    long[] oldOffsets = offsets;
    int[] oldSource = source;
    int[] oldPieces = pieces;
    int capacity = oldSource.length * 2;
    hi = new long[capacity];
    lo = new long[capacity];
    offsets = new long[capacity];
    source = new int[capacity];
    pieces = new int[capacity];
    for (int i = 0; i < oldSource.length; i++) {
      if (oldSource[i] != 0) {
        int slot = find(oldHi[i], oldLo[i]);
        hi[slot] = oldHi[i];
        lo[slot] = oldLo[i];
        offsets[slot] = oldOffsets[i];
        source[slot] = oldSource[i];
        pieces[slot] = oldPieces[i];
      }
    }
  }
}
