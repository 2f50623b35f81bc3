package dev.kiln.index;

import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TopKnnCollector;
import org.apache.lucene.search.knn.KnnCollectorManager;

/**
 * Lucene's filtered HNSW query with every segment searched on its own: each collects its own top k
 * and the segments' lists are merged. Lucene's default shares one minimum competitive similarity
 * across segments (its multi-leaf collector) and sizes each segment's first walk by the segment's
 * share of the index (optimistic collection); both make a segment's neighbours depend on which other
 * segments the searcher sees. A shard group behind a router sees only its own shards' segments, so
 * with the default its approximate neighbours could differ from one process over the whole
 * snapshot; searched independently, a segment returns the same list in both, and the merged top k
 * is the same. A segment's walk may then visit more nodes than under the shared bound (no pruning
 * from the others), which costs latency on snapshots of many segments and raises recall.
 */
final class PerLeafKnnQuery extends KnnFloatVectorQuery {
  PerLeafKnnQuery(String field, float[] target, int k, Query filter) {
    super(field, target, k, filter);
  }

  @Override
  protected KnnCollectorManager getKnnCollectorManager(int k, IndexSearcher searcher) {
    return (visitedLimit, strategy, context) -> new TopKnnCollector(k, visitedLimit, strategy);
  }
}
