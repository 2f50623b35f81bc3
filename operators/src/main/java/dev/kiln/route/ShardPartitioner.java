package dev.kiln.route;

import org.apache.flink.api.common.functions.Partitioner;

/** Sends shard {@code s} to writer subtask {@code s mod writers}. */
public final class ShardPartitioner implements Partitioner<Integer> {
  private static final long serialVersionUID = 1L;

  @Override
  public int partition(Integer shard, int numPartitions) {
    return shard % numPartitions;
  }
}
