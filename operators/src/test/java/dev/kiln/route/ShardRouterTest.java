package dev.kiln.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ShardRouterTest {
  /**
   * Pinned values: these must never change, or documents would move between shards from one build to
   * the next (and existing snapshots could not be updated in place). Computed when the format was
   * fixed; a failure here means the routing hash changed.
   */
  @Test
  void assignmentIsPinned() {
    int[] expected = {5, 1, 3, 5, 0, 3, 4, 6, 3, 5, 1, 1, 6, 3, 5, 3, 0, 2, 1, 4};
    for (int i = 0; i < expected.length; i++) {
      assertEquals(expected[i], ShardRouter.shardOf("doc-" + i, 7), "doc-" + i);
    }
    assertEquals(0x89525c897f4f4b75L, ShardRouter.hash64("kiln"));
  }

  @Test
  void shardDependsOnlyOnDocIdAndShardCount() {
    // Writer parallelism plays no part: the same id gives the same shard for any number of writers.
    for (int i = 0; i < 1000; i++) {
      String id = "id-" + i;
      int s = ShardRouter.shardOf(id, 8);
      for (int writers = 1; writers <= 8; writers++) {
        assertEquals(s, ShardRouter.shardOf(id, 8));
        int writer = new ShardPartitioner().partition(s, writers);
        assertTrue(writer >= 0 && writer < writers);
      }
    }
  }

  @Test
  void spreadsDocumentsEvenly() {
    int shards = 4;
    int[] counts = new int[shards];
    for (int i = 0; i < 40_000; i++) {
      counts[ShardRouter.shardOf("doc-" + i, shards)]++;
    }
    for (int c : counts) {
      assertTrue(Math.abs(c - 10_000) < 500, "uneven shard sizes " + java.util.Arrays.toString(counts));
    }
  }

  @Test
  void handlesNonAsciiIds() {
    int s = ShardRouter.shardOf("文档-1", 3);
    assertTrue(s >= 0 && s < 3);
    assertEquals(s, ShardRouter.shardOf("文档-1", 3));
  }
}
