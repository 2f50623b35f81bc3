package dev.kiln.operators;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/** The shard write stage's live Flink metrics, in the operator's group. */
final class WriteMetrics {
  /** Chunks added to a shard index. */
  static final String CHUNKS = "chunksWritten";
  /** Bytes of the finished shard indexes this subtask wrote (their files' sizes after the last commit). */
  static final String BYTES = "bytesWritten";
  /** Shards finished by this subtask, empty ones included. */
  static final String SHARDS = "shardsWritten";

  private final Counter chunks;
  private final Counter bytes;
  private final Counter shards;

  WriteMetrics(MetricGroup group) {
    chunks = group.counter(CHUNKS);
    bytes = group.counter(BYTES);
    shards = group.counter(SHARDS);
  }

  void chunk() {
    chunks.inc();
  }

  /** One finished shard: counts it and the size of its directory's files. */
  void shard(Path directory) throws IOException {
    long size = 0;
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        size += Files.size(f);
      }
    }
    bytes.inc(size);
    shards.inc();
  }
}
