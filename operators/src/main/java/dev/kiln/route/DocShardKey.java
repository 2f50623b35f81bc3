package dev.kiln.route;

import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.util.function.SerializableFunction;

/**
 * Keys any stage element by its document's shard ({@link ShardRouter}), so that chunks, parents and
 * changelog changes of one document all reach the writer of that shard.
 *
 * @param <T> the element type; {@code docId} says which document it belongs to
 */
public final class DocShardKey<T> implements KeySelector<T, Integer> {
  private static final long serialVersionUID = 1L;
  private final int shards;
  private final SerializableFunction<T, String> docId;

  public DocShardKey(int shards, SerializableFunction<T, String> docId) {
    this.shards = shards;
    this.docId = docId;
  }

  @Override
  public Integer getKey(T element) {
    return ShardRouter.shardOf(docId.apply(element), shards);
  }
}
