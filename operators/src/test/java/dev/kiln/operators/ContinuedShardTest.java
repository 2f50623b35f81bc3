package dev.kiln.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.DocFingerprints;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.index.ShardSchema;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import dev.kiln.model.DocumentFingerprint;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.RecordPosition;
import dev.kiln.operators.fs.BaseShard;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An incremental build's shard writer resolves duplicate ids between unchanged records (base chunks
 * kept) and fresh ones (chunks written) the way a full build does, whatever order the pieces arrive
 * in: every permutation of every scenario leaves exactly the winner's chunks, the base's files as they
 * were, and counters that match.
 */
class ContinuedShardTest {
  private static final String SETTINGS = "s";
  @TempDir Path tmp;
  private int runs;

  /** A piece arriving at the writer: one chunk of a fresh record, or an unchanged record. */
  private record Piece(String docId, RecordPosition at, String text, int ordinal, boolean unchanged) {}

  private static final RecordPosition A5 = new RecordPosition("file:/c/a", 5);
  private static final RecordPosition B10 = new RecordPosition("file:/c/b", 10);
  private static final RecordPosition B20 = new RecordPosition("file:/c/b", 20);
  private static final RecordPosition C1 = new RecordPosition("file:/c/c", 1);

  private static final Piece UNCHANGED_B10 = new Piece("x", B10, null, 0, true);
  private static final Piece UNCHANGED_B20 = new Piece("x", B20, null, 0, true);
  private static final Piece FRESH_A5_0 = new Piece("x", A5, "fresh from a", 0, false);
  private static final Piece FRESH_A5_1 = new Piece("x", A5, "fresh from a", 1, false);
  private static final Piece FRESH_C1 = new Piece("x", C1, "fresh from c", 0, false);

  private static EmbeddedChunk chunk(String docId, String text, int ordinal, RecordPosition at) {
    Document d = new Document(docId, "", text, Map.of(), "f");
    Chunk c = new Chunk(docId + "#" + ordinal, docId, ordinal, "", text + " " + ordinal, 0, text.length(), 2,
        Map.of()).withDocFingerprint(DocumentFingerprint.hex(d, SETTINGS)).withSource(at);
    float[] v = new float[4];
    v[Math.abs((docId + text).hashCode()) % 4] = 1;
    return new EmbeddedChunk(c, v);
  }

  /** Base: x (two chunks), y and gone, one chunk each. */
  private Path base() throws IOException {
    Path base = tmp.resolve("base");
    try (ShardIndexWriter w = new ShardIndexWriter(base, new IndexConfig(), 4)) {
      w.add(chunk("x", "base text", 0, null));
      w.add(chunk("x", "base text", 1, null));
      w.add(chunk("y", "base y", 0, null));
      w.add(chunk("gone", "base gone", 0, null));
    }
    return base;
  }

  @Test
  void everyArrivalOrderKeepsOnlyTheFirstRecordsChunks() throws Exception {
    Path base = base();
    // The records of x in the new corpus, and whose chunks must stay (by text; "base text": the base's).
    check(base, List.of(UNCHANGED_B10, FRESH_C1), "base text");
    check(base, List.of(UNCHANGED_B10, FRESH_A5_0, FRESH_A5_1), "fresh from a");
    check(base, List.of(UNCHANGED_B10, FRESH_A5_0, FRESH_A5_1, FRESH_C1), "fresh from a");
    check(base, List.of(UNCHANGED_B10, UNCHANGED_B20, FRESH_C1), "base text");
    check(base, List.of(UNCHANGED_B20, FRESH_A5_0, FRESH_A5_1, UNCHANGED_B10), "fresh from a");
    check(base, List.of(FRESH_A5_0, FRESH_A5_1, FRESH_C1), "fresh from a");
  }

  /**
   * Ids that look like content keys to {@code KeyBits.of} (64 characters, the first 32 hex digits) and
   * share those 32 digits, as zero-padded numbers do: one kept, one changed, one gone from the corpus.
   * Each must be told apart: the gone one pruned, the changed one's base chunk replaced, not kept twice.
   */
  @Test
  void hexLookingIdsSharingTheirFirst128BitsAreToldApart() throws Exception {
    String kept = "0".repeat(60) + "0001";
    String changed = "0".repeat(60) + "0002";
    String gone = "0".repeat(60) + "0003";
    Path base = tmp.resolve("hex-base");
    try (ShardIndexWriter w = new ShardIndexWriter(base, new IndexConfig(), 4)) {
      w.add(chunk(kept, "kept text", 0, null));
      w.add(chunk(changed, "old text", 0, null));
      w.add(chunk(gone, "gone text", 0, null));
    }
    Path next = tmp.resolve("hex-next");
    LongCounter pruned = new LongCounter();
    DocumentWinners winners = new DocumentWinners();
    try (ContinuedShard shard = ContinuedShard.open(next, new BaseShard.Local(base), new IndexConfig(), 4, true,
        new ContinuedShard.Counters(new LongCounter(), new LongCounter(), pruned, new LongCounter(),
            new LongCounter()))) {
      RecordPosition at = new RecordPosition("file:/c/a", 0);
      shard.unchanged(kept, winners.offerUnchanged(kept, at), at);
      RecordPosition changedAt = new RecordPosition("file:/c/a", 1);
      shard.add(chunk(changed, "new text", 0, changedAt), winners.offer(changed, changedAt));
      shard.finishIncremental();
    }
    Map<String, List<String>> live = liveTexts(next);
    assertEquals(List.of("kept text 0"), live.get(kept));
    assertEquals(List.of("new text 0"), live.get(changed), "the changed document's base chunk went");
    assertTrue(!live.containsKey(gone), "the document no record holds any more is removed");
    assertEquals(1, pruned.getLocalValue());
  }

  private void check(Path base, List<Piece> pieces, String winner) throws Exception {
    for (List<Piece> order : permutations(pieces)) {
      Path next = tmp.resolve("next-" + runs++);
      Map<String, Long> counters = write(base, next, order);
      String what = order + " → ";
      Map<String, List<String>> live = liveTexts(next);
      List<String> expected = winner.equals("base text") ? List.of("base text 0", "base text 1")
          : winner.equals("fresh from a") ? List.of("fresh from a 0", "fresh from a 1") : List.of(winner + " 0");
      assertEquals(expected, live.get("x"), what + "x holds only its winner's chunks, once each");
      assertEquals(List.of("base y 0"), live.get("y"), what + "an unchanged document keeps its base chunk");
      assertTrue(!live.containsKey("gone"), what + "a document no record holds any more is removed");
      boolean kept = winner.equals("base text");
      assertEquals(kept ? 2 : 1, counters.get("kept"), what + "kept: y, and x when its unchanged record won");
      assertEquals(kept ? 1 : 3, counters.get("removedChunks"), what + "base chunks removed: gone's, and x's");
      assertEquals(1, counters.get("pruned"), what + "one document left the corpus");
      DocFingerprints fps = DocFingerprints.read(List.of(next));
      assertTrue(fps.contains(DocumentFingerprint.of(new Document("x", "", winner, Map.of(), "f"), SETTINGS)),
          what + "the winner's fingerprint is there for the next build");
      assertEquals(2, fps.size(), what + "one fingerprint per live document");
      assertNearestIsX(next, winner, what);
    }
    assertEquals(liveTexts(base).get("x"), List.of("base text 0", "base text 1"), "the base is untouched");
  }

  /** The winner's vector finds x through the HNSW graph of whatever segment holds it. */
  private static void assertNearestIsX(Path shard, String winner, String what) throws IOException {
    float[] v = chunk("x", winner, 0, null).vector();
    try (FSDirectory dir = FSDirectory.open(shard); DirectoryReader r = DirectoryReader.open(dir)) {
      IndexSearcher s = new IndexSearcher(r);
      TopDocs top = s.search(KnnFloatVectorField.newVectorQuery(ShardSchema.VECTOR, v, 4), 4);
      StoredFields stored = s.storedFields();
      boolean found = false;
      for (var hit : top.scoreDocs) {
        found |= "x".equals(stored.document(hit.doc).get(ShardSchema.DOC_ID)) && hit.score > 0.99f;
      }
      assertTrue(found, what + "x is found by its vector");
    }
  }

  private static Map<String, Long> write(Path base, Path next, List<Piece> order) throws IOException {
    LongCounter written = new LongCounter();
    LongCounter kept = new LongCounter();
    LongCounter pruned = new LongCounter();
    LongCounter unknown = new LongCounter();
    LongCounter removed = new LongCounter();
    DocumentWinners winners = new DocumentWinners();
    try (ContinuedShard shard = ContinuedShard.open(next, new BaseShard.Local(base), new IndexConfig(), 4, true,
        new ContinuedShard.Counters(written, kept, pruned, unknown, removed))) {
      shard.unchanged("y", winners.offerUnchanged("y", new RecordPosition("file:/c/y", 0)));
      for (Piece p : order) {
        if (p.unchanged()) {
          shard.unchanged(p.docId(), winners.offerUnchanged(p.docId(), p.at()));
        } else {
          shard.add(chunk(p.docId(), p.text(), p.ordinal(), p.at()), winners.offer(p.docId(), p.at()));
        }
      }
      shard.finishIncremental();
    }
    return Map.of("kept", kept.getLocalValue(), "removedChunks", removed.getLocalValue(),
        "pruned", pruned.getLocalValue());
  }

  /** Live chunk texts per document id, sorted. */
  private static Map<String, List<String>> liveTexts(Path shard) throws IOException {
    Map<String, List<String>> out = new TreeMap<>();
    try (FSDirectory dir = FSDirectory.open(shard); DirectoryReader r = DirectoryReader.open(dir)) {
      for (LeafReaderContext leaf : r.leaves()) {
        Bits live = leaf.reader().getLiveDocs();
        StoredFields fields = leaf.reader().storedFields();
        for (int d = 0; d < leaf.reader().maxDoc(); d++) {
          if (live == null || live.get(d)) {
            var doc = fields.document(d);
            out.computeIfAbsent(doc.get(ShardSchema.DOC_ID), k -> new ArrayList<>()).add(doc.get(ShardSchema.TEXT));
          }
        }
      }
    }
    out.values().forEach(l -> l.sort(null));
    return out;
  }

  private static <T> List<List<T>> permutations(List<T> items) {
    if (items.size() <= 1) {
      return List.of(items);
    }
    List<List<T>> out = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      List<T> rest = new ArrayList<>(items);
      T first = rest.remove(i);
      for (List<T> tail : permutations(rest)) {
        List<T> p = new ArrayList<>();
        p.add(first);
        p.addAll(tail);
        out.add(p);
      }
    }
    return out;
  }
}
