package dev.kiln.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ShardSizeAdviceTest {
  @Test
  void shardsUpToTheAdvisedSizeGetNoAdvice() {
    assertEquals(Optional.empty(), ShardSizeAdvice.advise(List.of(500_000L, 499_000L)));
    assertEquals(Optional.empty(), ShardSizeAdvice.advise(List.of(ShardSizeAdvice.MAX_ADVISED_SHARD_CHUNKS, 3L)));
    assertEquals(Optional.empty(), ShardSizeAdvice.advise(List.of()));
  }

  @Test
  void oneShardPastTheAdvisedSizeNamesItsSizeAndAShardCountForTheWholeSnapshot() {
    String advice = ShardSizeAdvice.advise(List.of(1_500_321L, 1_499_679L)).orElseThrow();
    assertTrue(advice.contains("the largest of the 2 shards holds 1,500,321 chunks"), advice);
    // 3,000,000 chunks at about 500k a shard.
    assertTrue(advice.contains("--shards 6 "), advice);
    assertTrue(advice.contains("--ef"), advice);

    String uneven = ShardSizeAdvice.advise(List.of(10L, ShardSizeAdvice.MAX_ADVISED_SHARD_CHUNKS + 1)).orElseThrow();
    assertTrue(uneven.contains("holds 1,000,001 chunks"), uneven);
    assertTrue(uneven.contains("--shards 3 "), uneven);
  }

  @Test
  void theCountersRowFlagsOnlyAShardPastTheAdvisedSize() {
    assertEquals("500,000", ShardSizeAdvice.describeLargest(List.of(500_000L, 499_000L)));
    assertEquals("1,500,321 (past the advised 1,000,000: see the warning)",
        ShardSizeAdvice.describeLargest(List.of(1_500_321L, 1_499_679L)));
  }

  @Test
  void advisedShardsRoundsUpToAboutHalfAMillionChunksEach() {
    assertEquals(1, ShardSizeAdvice.advisedShards(0));
    assertEquals(1, ShardSizeAdvice.advisedShards(ShardSizeAdvice.TARGET_SHARD_CHUNKS));
    assertEquals(2, ShardSizeAdvice.advisedShards(ShardSizeAdvice.TARGET_SHARD_CHUNKS + 1));
    assertEquals(20, ShardSizeAdvice.advisedShards(10_000_000));
    assertEquals(200, ShardSizeAdvice.advisedShards(100_000_000));
  }
}
