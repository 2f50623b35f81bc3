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

  private ShardResult shard(int shard, int chunks, int subtask) throws Exception {
    Path dir = layout.shardDir(id, shard);
    try (ShardIndexWriter w = new ShardIndexWriter(dir, new IndexConfig(), 2)) {
      for (int i = 0; i < chunks; i++) {
        String doc = "s" + shard + "d" + i;
        w.add(new EmbeddedChunk(new Chunk(doc + "#0", doc, 0, "", "text " + i, 0, 6, 2, Map.of()),
            new float[] {0.6f, 0.8f}));
      }
    }
    return new ShardResult(shard, dir.toString(), chunks, chunks, subtask);
  }

  @Test
  void acceptsACompleteShardSet() throws Exception {
    List<ShardResult> ok = ShardVerifier.verify(layout, id, 2, List.of(shard(1, 2, 1), shard(0, 3, 0)), 5);
    assertEquals(0, ok.get(0).shard());
    assertEquals(1, ok.get(1).shard());
  }

  @Test
  void emptyShardIsNotMissing() throws Exception {
    ShardVerifier.verify(layout, id, 2, List.of(shard(0, 0, 0), shard(1, 1, 1)), 1);
  }

  @Test
  void missingShardFailsThePublish() throws Exception {
    SnapshotException e = assertThrows(SnapshotException.class,
        () -> ShardVerifier.verify(layout, id, 3, List.of(shard(0, 1, 0), shard(2, 1, 0)), 2));
    assertTrue(e.getMessage().contains("shard 1 is missing"), e.getMessage());
  }

  @Test
  void twoAttemptsForOneShardFailThePublish() throws Exception {
    ShardResult first = shard(0, 1, 0);
    ShardResult again = new ShardResult(0, first.directory(), 1, 1, 1);
    SnapshotException e = assertThrows(SnapshotException.class,
        () -> ShardVerifier.verify(layout, id, 1, List.of(first, again), 1));
    assertTrue(e.getMessage().contains("reported twice"), e.getMessage());
  }

  @Test
  void countsMustMatchTheWritersAndTheJob() throws Exception {
    ShardResult r = shard(0, 2, 0);
    ShardResult lying = new ShardResult(0, r.directory(), 3, 3, 0);
    assertTrue(assertThrows(SnapshotException.class, () -> ShardVerifier.verify(layout, id, 1, List.of(lying), 3))
        .getMessage().contains("holds 2 chunks, its writer reported 3"));
    assertTrue(assertThrows(SnapshotException.class, () -> ShardVerifier.verify(layout, id, 1, List.of(r), 5))
        .getMessage().contains("job embedded 5"));
  }
}
