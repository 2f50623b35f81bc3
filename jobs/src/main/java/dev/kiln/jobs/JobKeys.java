package dev.kiln.jobs;

import dev.kiln.model.Chunk;
import dev.kiln.model.ContentKey;
import dev.kiln.operators.SourcedDocument;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * How the build job keys its streams: documents by id (deduplication), chunks by content key, whose
 * partitioner sends equal keys to one embed subtask (reuse and deduplication look there).
 */
final class JobKeys {
  private JobKeys() {}

  static final class DocumentId implements KeySelector<SourcedDocument, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(SourcedDocument d) {
      return d.document().id();
    }
  }

  static final class ContentKeySelector implements KeySelector<Chunk, String> {
    private static final long serialVersionUID = 1L;
    private final String settings;

    ContentKeySelector(String settings) {
      this.settings = settings;
    }

    @Override
    public String getKey(Chunk c) {
      return ContentKey.forChunk(settings, c);
    }
  }

  static final class ContentKeyPartitioner implements Partitioner<String> {
    private static final long serialVersionUID = 1L;

    @Override
    public int partition(String key, int partitions) {
      return ContentKey.partition(key, partitions);
    }
  }
}
