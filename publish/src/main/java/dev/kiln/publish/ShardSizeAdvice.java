package dev.kiln.publish;

import dev.kiln.snapshot.Manifest;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether a snapshot's shards have grown past the size at which its default dense search depth keeps
 * recall. One shard is one HNSW graph (one segment, {@code index.max-segments: 1}), and a walk of the
 * default width finds less of the true top 10 as the graph grows — faster than the automatic depth
 * ({@code KnnSearch.efFor}) widens it past a million vectors. More, smaller shards keep each graph at a
 * size where the default holds; a wider walk ({@code --ef}) is the other way. The shard count is chosen
 * before the corpus is read, so the build can only say so afterwards.
 *
 * <p>Measured by the scale benchmark (docs/results/scale.md, runs (r), (p), (s); 384-d, M 16, beam 100):
 * recall@10 at the default depth 0.967 with 500k chunks a shard (1M in two shards), 0.933 with 1.5M
 * (3M in two), 0.968 again with 500k a shard at 3M (six shards). On two cores the six shards cost
 * hybrid latency (p50 13.7 against 9.3 ms) while dense search reaches a given recall sooner than the
 * two large graphs do with a wider walk (0.955 at 3.0 ms against 5.1 ms), so the advice names both.
 */
public final class ShardSizeAdvice {
  /** Chunks a shard holds beyond which the build advises more shards. */
  public static final long MAX_ADVISED_SHARD_CHUNKS = 1_000_000;
  /** The shard size the advice aims at: where the default depth measured recall@10 0.967. */
  public static final long TARGET_SHARD_CHUNKS = 500_000;

  private ShardSizeAdvice() {}

  /** The largest shard's chunk count for the counters table, flagged when it is past the advised size. */
  public static String describeLargest(Manifest manifest) {
    return describeLargest(chunksPerShard(manifest));
  }

  static String describeLargest(List<Long> chunksPerShard) {
    long largest = largest(chunksPerShard);
    return String.format(Locale.ROOT, "%,d", largest) + (largest <= MAX_ADVISED_SHARD_CHUNKS ? ""
        : String.format(Locale.ROOT, " (past the advised %,d: see the warning)", MAX_ADVISED_SHARD_CHUNKS));
  }

  /** The shard count that keeps {@code chunks} at about {@link #TARGET_SHARD_CHUNKS} a shard (at least 1). */
  static int advisedShards(long chunks) {
    return (int) Math.max(1, (chunks + TARGET_SHARD_CHUNKS - 1) / TARGET_SHARD_CHUNKS);
  }

  /** {@link #advise(List)} of the manifest's shards. */
  public static Optional<String> advise(Manifest manifest) {
    return advise(chunksPerShard(manifest));
  }

  /** Advice when the largest of the shards (their chunk counts) is past {@link #MAX_ADVISED_SHARD_CHUNKS}. */
  static Optional<String> advise(List<Long> chunksPerShard) {
    long largest = largest(chunksPerShard);
    if (largest <= MAX_ADVISED_SHARD_CHUNKS) {
      return Optional.empty();
    }
    long total = chunksPerShard.stream().mapToLong(Long::longValue).sum();
    return Optional.of(String.format(Locale.ROOT, "the largest of the %d shards holds %,d chunks; past %,d chunks"
        + " a shard the default dense search depth finds less of the true top 10 (scale benchmark: recall@10"
        + " 0.967 at 500k chunks a shard, 0.933 at 1.5M). Build with --shards %d (about %,d chunks each; a new"
        + " shard count makes the next build a full one), or search with a larger --ef", chunksPerShard.size(),
        largest, MAX_ADVISED_SHARD_CHUNKS, advisedShards(total), TARGET_SHARD_CHUNKS));
  }

  private static List<Long> chunksPerShard(Manifest manifest) {
    return manifest.shards().stream().map(Manifest.ShardEntry::chunks).toList();
  }

  private static long largest(List<Long> chunksPerShard) {
    return chunksPerShard.stream().mapToLong(Long::longValue).max().orElse(0);
  }
}
