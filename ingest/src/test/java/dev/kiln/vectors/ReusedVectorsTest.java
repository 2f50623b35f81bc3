package dev.kiln.vectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.ContentKey;
import dev.kiln.snapshot.Checksums;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One embed subtask's share of the stored vectors: only the parts of its content-key partition are
 * read when the parallelism is the one that wrote them, each part's bytes are checked against its
 * SHA-256 first, and a part that fails is passed over without reusing a row of it.
 */
class ReusedVectorsTest {
  static final String MODEL = "sha256:test-model";
  static final int DIM = 4;

  @TempDir Path dir;
  final Map<String, float[]> vectors = new LinkedHashMap<>();
  final List<ReusePart> parts = new ArrayList<>();

  /** 200 keys, each stored by the subtask (of two) its partition routes it to, as the embed stage does. */
  @BeforeEach
  void writeTwoSubtasksParts() throws Exception {
    List<RollingParts> writers = List.of(
        new RollingParts(PartTransfer.LOCAL, dir.toString(), 0, 2, 0, MODEL, DIM, 1_000, 3_600),
        new RollingParts(PartTransfer.LOCAL, dir.toString(), 1, 2, 0, MODEL, DIM, 1_000, 3_600));
    for (int i = 0; i < 200; i++) {
      String key = String.format(Locale.ROOT, "%08x%056x", i * 2_654_435_761L & 0xffffffffL, i);
      float[] v = {i, 1, 2, 3};
      vectors.put(key, v);
      writers.get(ContentKey.partition(key, 2)).write(key, v);
    }
    for (RollingParts w : writers) {
      w.roll();
    }
    for (int s = 0; s < 2; s++) {
      Path p = dir.resolve(RollingParts.partName(s, 2, 0, 0));
      parts.add(new ReusePart(p.toString(), Checksums.sha256(p)));
    }
  }

  @Test
  void withTheSameParallelismASubtaskReadsOnlyThePartOfItsPartition() throws Exception {
    for (int subtask = 0; subtask < 2; subtask++) {
      ReusedVectors.Outcome o = ReusedVectors.load(PartTransfer.LOCAL, new ReuseSource("s", parts), subtask, 2, MODEL, DIM);
      assertEquals(1, o.read());
      assertEquals(1, o.skipped());
      assertEquals(0, o.refused());
      try (StoredVectorIndex index = o.index()) {
        int expected = 0;
        for (Map.Entry<String, float[]> e : vectors.entrySet()) {
          if (ContentKey.partition(e.getKey(), 2) == subtask) {
            expected++;
            assertArrayEquals(e.getValue(), index.get(e.getKey()), e.getKey());
          }
        }
        assertEquals(expected, index.size(), "every key of the partition, and only those");
        assertTrue(expected > 50 && expected < 150, "both partitions hold keys: " + expected);
      }
    }
  }

  @Test
  void withAnotherParallelismEveryPartIsReadAndOnlyThePartitionsRowsKept() throws Exception {
    ReusedVectors.Outcome o = ReusedVectors.load(PartTransfer.LOCAL, new ReuseSource("s", parts), 1, 3, MODEL, DIM);
    assertEquals(2, o.read());
    assertEquals(0, o.skipped());
    try (StoredVectorIndex index = o.index()) {
      long expected = vectors.keySet().stream().filter(k -> ContentKey.partition(k, 3) == 1).count();
      assertEquals(expected, index.size());
    }
  }

  @Test
  void aPartWhoseBytesDoNotMatchItsChecksumIsPassedOverWhole() throws Exception {
    Path damaged = Path.of(parts.get(0).location());
    byte[] bytes = Files.readAllBytes(damaged);
    bytes[bytes.length / 2] ^= 0x01;
    Files.write(damaged, bytes);
    ReusedVectors.Outcome o = ReusedVectors.load(PartTransfer.LOCAL, new ReuseSource("s", parts), 0, 2, MODEL, DIM);
    assertEquals(0, o.read());
    assertEquals(1, o.refused());
    try (StoredVectorIndex index = o.index()) {
      assertEquals(0, index.size());
    }
    // A part that is gone is refused the same way, not a failed task.
    Files.delete(damaged);
    assertEquals(1, ReusedVectors.load(PartTransfer.LOCAL, new ReuseSource("s", parts), 0, 2, MODEL, DIM).refused());
  }

  @Test
  void aPartOfAnotherModelIsRefused() throws Exception {
    ReusedVectors.Outcome o =
        ReusedVectors.load(PartTransfer.LOCAL, new ReuseSource("s", parts), 0, 2, "sha256:other", DIM);
    assertEquals(1, o.refused());
    try (StoredVectorIndex index = o.index()) {
      assertEquals(0, index.size());
    }
  }

  @Test
  void aPartNamedWithoutItsParallelismIsNeededByEverySubtask() {
    ReusePart legacy = new ReusePart("/r/snapshots/x/embeddings/part-00001-00-00000.parquet", "sha");
    ReusePart old = new ReusePart("s3://b/r/embeddings/part-00001.parquet", "sha");
    ReusePart current = new ReusePart("s3://b/r/embeddings/" + RollingParts.partName(1, 4, 2, 7), "sha");
    for (int s = 0; s < 4; s++) {
      assertTrue(legacy.neededBy(s, 4));
      assertTrue(old.neededBy(s, 4));
      assertEquals(s == 1, current.neededBy(s, 4));
      assertTrue(current.neededBy(s, 3), "another parallelism reads every part");
    }
    assertEquals("part-00001-of-00004-02-00007.parquet", current.name());
    assertFalse(current.neededBy(0, 4));
  }
}
