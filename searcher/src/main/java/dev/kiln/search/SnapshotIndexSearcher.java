package dev.kiln.search;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.CloseableThreadLocal;

/**
 * The Lucene searcher over one snapshot's shards: each segment its own slice on the shared pool
 * ({@link SearchThreads}), and one {@link StoredFields} per thread, kept across requests.
 *
 * <p>A {@code StoredFields} instance owns the buffers it decompresses stored blocks into, which grow
 * to a block's size (tens of KB) on first use. A request reads its hits, its feedback chunks' texts
 * and a few document ids; with a new instance each time those buffers were a fifth of a hybrid
 * query's allocation at 1M chunks, and young collections, whose pauses the slowest queries wait
 * out, came that much more often. An instance must not be shared between threads, hence one per
 * thread; calls on it never nest, so the readers of one thread can share it.
 */
final class SnapshotIndexSearcher extends IndexSearcher implements Closeable {
  private final boolean sliced;
  private final CloseableThreadLocal<StoredFields> stored = new CloseableThreadLocal<>();

  /** @param executor the pool segments are searched on, or null to search in the calling thread */
  SnapshotIndexSearcher(IndexReader reader, Executor executor) {
    super(reader, executor);
    this.sliced = executor != null;
  }

  @Override
  protected LeafSlice[] slices(List<LeafReaderContext> leaves) {
    // One slice per segment: a query's shards run in parallel. Without a pool, Lucene's own slicing
    // (slices would only add merges).
    return sliced ? slices(leaves, Integer.MAX_VALUE, 1, false) : super.slices(leaves);
  }

  @Override
  public StoredFields storedFields() throws IOException {
    StoredFields fields = stored.get();
    if (fields == null) {
      fields = getIndexReader().storedFields();
      stored.set(fields);
    }
    return fields;
  }

  /** Drops every thread's stored-fields reader; the index reader is closed by its owner. */
  @Override
  public void close() {
    stored.close();
  }

}
