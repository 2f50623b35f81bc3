package dev.kiln.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.DocFingerprintFile;
import dev.kiln.index.DocFingerprints;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.index.ShardSchema;
import dev.kiln.index.SourcePositions;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import dev.kiln.model.DocumentFingerprint;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.RecordPosition;
import dev.kiln.operators.fs.BaseShard;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An incremental build's writer copies the chunks of an unchanged document whose record was read from
 * another file than the base records (a record moved between files) with the new position, every
 * other field as it was, so the next build may leave that file unread; where it cannot (an offset too
 * large to keep), the document keeps the old position and is counted as moved.
 */
class ContinuedShardRelocationTest {
  private static final String SETTINGS = "s";
  private static final String A = "file:/c/a.jsonl";
  private static final String B = "file:/c/b.jsonl";
  private static final String C = "file:/c/c.jsonl";
  @TempDir Path tmp;

  private static EmbeddedChunk chunk(String docId, int ordinal, RecordPosition at) {
    String text = "text of " + docId;
    Document d = new Document(docId, "", text, Map.of(), "f");
    Chunk c = new Chunk(docId + "#" + ordinal, docId, ordinal, "", text + " " + ordinal, 0, text.length(), 2,
        Map.of()).withDocFingerprint(DocumentFingerprint.hex(d, SETTINGS)).withSource(at);
    float[] v = new float[4];
    v[(docId.charAt(0) + ordinal) % 4] = 1;
    return new EmbeddedChunk(c, v);
  }

  /** p (two chunks, one per segment: a document spanning segments), q and r; p and q in a, r in b. */
  private Path base() throws IOException {
    IndexConfig config = new IndexConfig();
    Path first = tmp.resolve("base-1");
    try (ShardIndexWriter w = new ShardIndexWriter(first, config, 4)) {
      w.add(chunk("p", 0, new RecordPosition(A, 3)));
      w.add(chunk("q", 0, new RecordPosition(A, 7)));
      w.add(chunk("r", 0, new RecordPosition(B, 0)));
    }
    Path base = tmp.resolve("base");
    try (ShardIndexWriter w = ShardIndexWriter.continuing(base, first, config, 4, false)) {
      w.add(chunk("p", 1, new RecordPosition(A, 3)));
    }
    DocFingerprintFile.write(base);
    return base;
  }

  private record Outcome(ContinuedShard shard, long kept, long removed) {}

  /** Offers p at {@code pAt}, q and r where the base has them, as unchanged records, and finishes. */
  private Outcome write(Path base, Path next, RecordPosition pAt) throws IOException {
    LongCounter kept = new LongCounter();
    LongCounter removed = new LongCounter();
    DocumentWinners winners = new DocumentWinners();
    ContinuedShard shard = ContinuedShard.open(next, new BaseShard.Local(base), new IndexConfig(), 4, true, new ContinuedShard.Counters(
        new LongCounter(), kept, new LongCounter(), new LongCounter(), removed));
    try (shard) {
      shard.unchanged("p", winners.offerUnchanged("p", pAt), pAt);
      RecordPosition q = new RecordPosition(A, 7);
      shard.unchanged("q", winners.offerUnchanged("q", q), q);
      RecordPosition r = new RecordPosition(B, 0);
      shard.unchanged("r", winners.offerUnchanged("r", r), r);
      shard.finishIncremental();
    }
    return new Outcome(shard, kept.getLocalValue(), removed.getLocalValue());
  }

  /** Each live chunk's position, stored text and fingerprint (hex), by chunk id. */
  private static Map<String, List<String>> chunks(Path shard) throws IOException {
    Map<String, List<String>> out = new TreeMap<>();
    try (FSDirectory dir = FSDirectory.open(shard); DirectoryReader r = DirectoryReader.open(dir)) {
      for (LeafReaderContext leaf : r.leaves()) {
        Bits live = leaf.reader().getLiveDocs();
        StoredFields stored = leaf.reader().storedFields();
        SortedDocValues sources = leaf.reader().getSortedDocValues(ShardSchema.SOURCE);
        NumericDocValues offsets = leaf.reader().getNumericDocValues(ShardSchema.SOURCE_OFFSET);
        BinaryDocValues fps = leaf.reader().getBinaryDocValues(ShardSchema.DOC_FP);
        for (int d = 0; d < leaf.reader().maxDoc(); d++) {
          if (live != null && !live.get(d)) {
            continue;
          }
          assertTrue(sources.advanceExact(d) && offsets.advanceExact(d) && fps.advanceExact(d), "chunk " + d);
          var doc = stored.document(d);
          out.put(doc.get(ShardSchema.CHUNK_ID), List.of(sources.lookupOrd(sources.ordValue()).utf8ToString() + "@"
              + offsets.longValue(), doc.get(ShardSchema.TEXT), HexFormat.of().formatHex(
                  fps.binaryValue().bytes, fps.binaryValue().offset, fps.binaryValue().offset + fps.binaryValue().length)));
        }
      }
    }
    return out;
  }

  @Test
  void aMovedDocumentsChunksAreCopiedWithTheNewPositionAndNothingElseChanges() throws Exception {
    Path base = base();
    Map<String, List<String>> before = chunks(base);
    Path next = tmp.resolve("next");
    Outcome o = write(base, next, new RecordPosition(C, 11));

    assertEquals(1, o.shard().relocated(), "p moved from a to c");
    assertEquals(0, o.shard().moved(), "nothing left at a stale position");
    assertEquals(3, o.kept(), "p, q and r are still kept, not re-added");
    assertEquals(0, o.removed(), "no document left the corpus");
    Map<String, List<String>> after = chunks(next);
    assertEquals(before.keySet(), after.keySet(), "every chunk once: p's copies replaced its base chunks");
    for (String id : List.of("p#0", "p#1")) {
      assertEquals(C + "@11", after.get(id).get(0), id + " carries the record's new position");
      assertEquals(before.get(id).subList(1, 3), after.get(id).subList(1, 3), id + ": text and fingerprint as before");
    }
    for (String id : List.of("q#0", "r#0")) {
      assertEquals(before.get(id), after.get(id), id + " is as it was");
    }
    assertTrue(SourcePositions.within(next, Set.of(A, B, C)), "every chunk lies in a listed file");
    assertFalse(SourcePositions.within(next, Set.of(A, B)), "p lies in c now");
    assertEquals(A + "@3", chunks(base).get("p#1").get(0), "the base is untouched");
    DocFingerprintFile.write(next);
    assertEquals(3, DocFingerprintFile.open(next).size(), "one fingerprint a live document");
    assertTrue(DocFingerprints.read(List.of(next)).contains(DocumentFingerprint.of(
        new Document("p", "", "text of p", Map.of(), "f"), SETTINGS)), "p is found unchanged by the next build");
    // The copies' vectors are searchable through the graph of the segment they went to.
    try (FSDirectory dir = FSDirectory.open(next); DirectoryReader r = DirectoryReader.open(dir)) {
      IndexSearcher s = new IndexSearcher(r);
      for (int ordinal = 0; ordinal < 2; ordinal++) {
        float[] v = chunk("p", ordinal, null).vector();
        TopDocs top = s.search(KnnFloatVectorField.newVectorQuery(ShardSchema.VECTOR, v, 3), 3);
        boolean found = false;
        for (var hit : top.scoreDocs) {
          found |= ("p#" + ordinal).equals(s.storedFields().document(hit.doc).get(ShardSchema.CHUNK_ID))
              && hit.score > 0.99f;
        }
        assertTrue(found, "p#" + ordinal + " is found by its vector");
      }
    }
  }

  @Test
  void aDocumentThatDidNotMoveIsNotCopied() throws Exception {
    Path base = base();
    Path next = tmp.resolve("next");
    Outcome o = write(base, next, new RecordPosition(A, 5)); // same file, another offset: not a move
    assertEquals(0, o.shard().relocated());
    assertEquals(0, o.shard().moved());
    assertEquals(chunks(base), chunks(next));
  }

  @Test
  void aMoveToAnOffsetTooLargeToKeepLeavesTheOldPositionAndCountsIt() throws Exception {
    Path base = base();
    Path next = tmp.resolve("next");
    Outcome o = write(base, next, new RecordPosition(C, 1L << 33));
    assertEquals(0, o.shard().relocated());
    assertEquals(1, o.shard().moved(), "p stays at a, stale: the writer counts the shard");
    assertEquals(chunks(base), chunks(next));
    assertFalse(SourcePositions.within(next, Set.of(B, C)), "p's chunks still say a");
  }
}
