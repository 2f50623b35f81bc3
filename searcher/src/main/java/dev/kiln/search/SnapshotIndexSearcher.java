package dev.kiln.search;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
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
    // Without a pool, Lucene's own slicing (slices would only add merges).
    return sliced ? balanced(leaves, SearchThreads.size()) : super.slices(leaves);
  }

  /**
   * Whole segments in at most {@code threads} slices, balanced by documents: the largest segment
   * first, each to the slice holding the fewest so far. One slice per segment while there are no
   * more segments than threads, so a query's shards run in parallel. An incremental rebuild adds a
   * small segment to each shard; as slices of their own, those ran as extra tasks beside the large
   * ones (more busy threads than cores), and a slice of several segments searches them with one
   * collector, so the small segment is pruned against the threshold the large one reached.
   */
  static LeafSlice[] balanced(List<LeafReaderContext> leaves, int threads) {
    int n = Math.max(1, Math.min(threads, leaves.size()));
    List<LeafReaderContext> largestFirst = new ArrayList<>(leaves);
    largestFirst.sort(Comparator.comparingInt((LeafReaderContext l) -> l.reader().maxDoc()).reversed()
        .thenComparingInt(l -> l.ord));
    List<List<LeafReaderContextPartition>> slices = new ArrayList<>(n);
    long[] docs = new long[n];
    for (int i = 0; i < n; i++) {
      slices.add(new ArrayList<>());
    }
    for (LeafReaderContext leaf : largestFirst) {
      int lightest = 0;
      for (int i = 1; i < n; i++) {
        if (docs[i] < docs[lightest]) {
          lightest = i;
        }
      }
      slices.get(lightest).add(LeafReaderContextPartition.createForEntireSegment(leaf));
      docs[lightest] += leaf.reader().maxDoc();
    }
    List<LeafSlice> out = new ArrayList<>(n);
    for (List<LeafReaderContextPartition> slice : slices) {
      if (!slice.isEmpty()) {
        out.add(new LeafSlice(slice));
      }
    }
    return out.toArray(new LeafSlice[0]);
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
