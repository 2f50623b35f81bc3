package dev.kiln.publish;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.Analyzers;
import dev.kiln.index.ShardIndexWriter;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * Merges a shard's segments down to {@code index.max-segments} (MapReduceIndexerTool's
 * {@code --max-segments}). Writers already merge before they commit, so this is usually a check; it
 * merges when a shard arrives with more segments (a writer with a different setting, a retried task
 * that appended), with the shard's own codec so HNSW parameters are kept.
 */
public final class ShardMerger {
  private ShardMerger() {}

  /** Segments before and after the merge. */
  public record MergeResult(int shard, int segmentsBefore, int segmentsAfter) {
    public boolean merged() {
      return segmentsAfter < segmentsBefore;
    }
  }

  public static MergeResult merge(int shard, Path shardDir, IndexConfig config) throws IOException {
    try (FSDirectory dir = FSDirectory.open(shardDir)) {
      return merge(shard, dir, config);
    }
  }

  /** As {@link #merge(int, Path, IndexConfig)} for a shard opened as a Lucene directory (closed by the caller). */
  public static MergeResult merge(int shard, Directory dir, IndexConfig config) throws IOException {
    int before = segments(dir);
    if (before <= config.maxSegments) {
      return new MergeResult(shard, before, before);
    }
    IndexWriterConfig iwc = new IndexWriterConfig(Analyzers.forName(config.analyzer));
    iwc.setOpenMode(IndexWriterConfig.OpenMode.APPEND);
    iwc.setSimilarity(new BM25Similarity(config.bm25K1, config.bm25B));
    iwc.setCodec(ShardIndexWriter.codec(config));
    try (IndexWriter w = new IndexWriter(dir, iwc)) {
      w.forceMerge(config.maxSegments);
      w.commit();
    }
    return new MergeResult(shard, before, segments(dir));
  }

  /** The shard's segments, unmerged. */
  public static MergeResult count(int shard, Path shardDir) throws IOException {
    try (FSDirectory dir = FSDirectory.open(shardDir)) {
      return count(shard, dir);
    }
  }

  /** The shard's segments, unmerged, for a shard opened as a Lucene directory. */
  public static MergeResult count(int shard, Directory dir) throws IOException {
    int n = segments(dir);
    return new MergeResult(shard, n, n);
  }

  static int segments(Directory dir) throws IOException {
    try (DirectoryReader r = DirectoryReader.open(dir)) {
      return r.leaves().size();
    }
  }
}
