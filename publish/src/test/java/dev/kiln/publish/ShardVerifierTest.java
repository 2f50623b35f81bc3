package dev.kiln.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.model.Chunk;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.ShardResult;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real Lucene shards written by {@link ShardIndexWriter}, verified before publishing. */
class ShardVerifierTest {
  @TempDir Path root;
  SnapshotLayout layout;
  String id;

  @BeforeEach
  void setUp() {
    layout = new SnapshotLayout(root);
    id = SnapshotLayout.newSnapshotId();
  }

  /** A real shard, finished as a writer finishes it: its files described with size and SHA-256. */
  private ShardResult shard(int shard, int chunks, int subtask) throws Exception {
    Path dir = layout.shardDir(id, shard);
    try (ShardIndexWriter w = new ShardIndexWriter(dir, new IndexConfig(), 2)) {
      for (int i = 0; i < chunks; i++) {
        String doc = "s" + shard + "d" + i;
        w.add(new EmbeddedChunk(new Chunk(doc + "#0", doc, 0, "", "text " + i, 0, 6, 2, Map.of()),
            new float[] {0.6f, 0.8f}));
      }
    }
    return new ShardResult(shard, dir.toString(), chunks, chunks, subtask, ManifestFiles.describe(dir), Double.NaN,
        1, 1);
  }

  @Test
  void acceptsACompleteShardSetOrderedByShard() throws Exception {
    List<ShardResult> ok = ShardVerifier.verifyReported(id, 2, List.of(shard(1, 2, 1), shard(0, 3, 0)), 5);
    assertEquals(0, ok.get(0).shard());
    assertEquals(1, ok.get(1).shard());
  }

  @Test
  void emptyShardIsNotMissing() throws Exception {
    assertEquals(2, ShardVerifier.verifyReported(id, 2, List.of(shard(0, 0, 0), shard(1, 1, 1)), 1).size());
  }

  @Test
  void missingShardFailsThePublish() throws Exception {
    SnapshotException e = assertThrows(SnapshotException.class,
        () -> ShardVerifier.verifyReported(id, 3, List.of(shard(0, 1, 0), shard(2, 1, 0)), 2));
    assertTrue(e.getMessage().contains("shard 1 is missing"), e.getMessage());
  }

  @Test
  void twoAttemptsForOneShardFailThePublish() throws Exception {
    ShardResult first = shard(0, 1, 0);
    ShardResult again = new ShardResult(0, first.directory(), 1, 1, 1, first.files(), Double.NaN, 1, 1);
    SnapshotException e = assertThrows(SnapshotException.class,
        () -> ShardVerifier.verifyReported(id, 1, List.of(first, again), 1));
    assertTrue(e.getMessage().contains("reported twice"), e.getMessage());
  }

  @Test
  void aShardReportedWithoutItsFilesFailsThePublish() throws Exception {
    ShardResult r = shard(0, 1, 0);
    ShardResult bare = new ShardResult(0, r.directory(), 1, 1, 0);
    SnapshotException e = assertThrows(SnapshotException.class,
        () -> ShardVerifier.verifyReported(id, 1, List.of(bare), 1));
    assertTrue(e.getMessage().contains("without its files"), e.getMessage());
  }

  @Test
  void shardsMustHoldWhatTheJobEmbeddedOrTheSnapshotIsHeld() throws Exception {
    ShardResult r = shard(0, 2, 0);
    GateFailedException e = assertThrows(GateFailedException.class,
        () -> ShardVerifier.verifyReported(id, 1, List.of(r), 5));
    assertTrue(e.getMessage().contains("shards hold 2 chunks but the job embedded 5"), e.getMessage());
    assertEquals(List.of(r), e.shards(), "the shards are whole: the gate keeps them");
  }
}
