package dev.kiln.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IndexConfig;
import dev.kiln.model.Chunk;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.RecordPosition;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Record positions read back from a shard: only the live documents of the files asked for, each with
 * its record's file and offset, across segments, a document of several chunks once per segment.
 */
class SourcePositionsTest {
  @TempDir Path tmp;

  private static EmbeddedChunk chunk(String doc, int ordinal, RecordPosition at) {
    Chunk c = new Chunk(doc + "#" + ordinal, doc, ordinal, "", "text " + doc, 0, 5, 2, Map.of()).withSource(at);
    float[] v = new float[4];
    v[Math.abs(doc.hashCode()) % 4] = 1;
    return new EmbeddedChunk(c, v);
  }

  /** docId → "file @ offset" for every visit of {@code files}. */
  private static Map<String, String> visit(Path shard, Set<String> files) throws Exception {
    Map<String, String> out = new TreeMap<>();
    try (FSDirectory dir = FSDirectory.open(shard); DirectoryReader r = DirectoryReader.open(dir)) {
      SourcePositions.visit(r, files, (id, uri, offset) -> {
        String previous = out.put(id.utf8ToString() + "/" + out.size(), uri + " @ " + offset);
        assertEquals(null, previous);
      });
    }
    Map<String, String> byDoc = new TreeMap<>();
    out.forEach((k, v) -> byDoc.merge(k.substring(0, k.indexOf('/')), v, (a, b) -> a + " | " + b));
    return byDoc;
  }

  @Test
  void onlyLiveDocumentsOfTheAskedFilesAreVisitedWithTheirPositions() throws Exception {
    Path shard = tmp.resolve("shard");
    IndexConfig config = new IndexConfig();
    try (ShardIndexWriter w = new ShardIndexWriter(shard, config, 4)) {
      w.add(chunk("a1", 0, new RecordPosition("file:/c/a.jsonl", 0)));
      w.add(chunk("a1", 1, new RecordPosition("file:/c/a.jsonl", 0)));
      w.add(chunk("a2", 0, new RecordPosition("file:/c/a.jsonl", 120)));
      w.add(chunk("b1", 0, new RecordPosition("file:/c/b.jsonl", 0)));
      w.add(chunk("gone", 0, new RecordPosition("file:/c/a.jsonl", 300)));
    }
    // A second segment: a deletion in the first and a document of a.jsonl written later.
    try (ShardIndexWriter w = ShardIndexWriter.continuing(tmp.resolve("next"), shard, config, 4, false)) {
      w.deleteDocument("gone");
      w.add(chunk("a3", 0, new RecordPosition("file:/c/a.jsonl", 450)));
    }
    Path next = tmp.resolve("next");
    assertTrue(SourcePositions.present(next));
    assertEquals(Map.of("a1", "file:/c/a.jsonl @ 0", "a2", "file:/c/a.jsonl @ 120", "a3", "file:/c/a.jsonl @ 450"),
        visit(next, Set.of("file:/c/a.jsonl")), "a1's two chunks once; the deleted one not at all");
    assertEquals(Map.of("b1", "file:/c/b.jsonl @ 0"), visit(next, Set.of("file:/c/b.jsonl")));
    assertEquals(Map.of(), visit(next, Set.of("file:/c/elsewhere.jsonl")));
  }

  @Test
  void chunksWithoutAPositionMakeTheShardUnfitForSkippingFiles() throws Exception {
    Path shard = tmp.resolve("old");
    try (ShardIndexWriter w = new ShardIndexWriter(shard, new IndexConfig(), 4)) {
      w.add(chunk("x", 0, null));
    }
    assertFalse(SourcePositions.present(shard), "written as before positions existed");
  }

  @Test
  void oneChunkWithoutAPositionInASegmentThatHasThemMakesTheShardUnfit() throws Exception {
    Path shard = tmp.resolve("mixed");
    try (ShardIndexWriter w = new ShardIndexWriter(shard, new IndexConfig(), 4)) {
      w.add(chunk("a1", 0, new RecordPosition("file:/c/a.jsonl", 0)));
      w.add(chunk("from-a-changelog", 0, null));
      w.add(chunk("a2", 0, new RecordPosition("file:/c/a.jsonl", 120)));
    }
    assertFalse(SourcePositions.present(shard), "the field is in the segment, but not on every chunk");
    // Once the chunk without one is deleted, every live chunk has a position again.
    Path next = tmp.resolve("mixed-next");
    try (ShardIndexWriter w = ShardIndexWriter.continuing(next, shard, new IndexConfig(), 4, false)) {
      w.deleteDocument("from-a-changelog");
    }
    assertTrue(SourcePositions.present(next));
  }

  @Test
  void aChunkPositionedOutsideTheListedFilesMakesTheShardUnfit() throws Exception {
    Path shard = tmp.resolve("kafka");
    try (ShardIndexWriter w = new ShardIndexWriter(shard, new IndexConfig(), 4)) {
      w.add(chunk("a1", 0, new RecordPosition("file:/c/a.jsonl", 0)));
      w.add(chunk("x", 0, new RecordPosition("kafka://changes/1", 42)));
    }
    assertTrue(SourcePositions.present(shard), "every chunk has a position");
    assertFalse(SourcePositions.within(shard, Set.of("file:/c/a.jsonl")), "x's is a Kafka partition");
    assertTrue(SourcePositions.within(shard, Set.of("file:/c/a.jsonl", "kafka://changes/1")));
  }
}
