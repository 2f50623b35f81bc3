package dev.kiln.bench;

import com.github.jelmerk.hnswlib.core.DistanceFunctions;
import com.github.jelmerk.hnswlib.core.Item;
import com.github.jelmerk.hnswlib.core.SearchResult;
import com.github.jelmerk.hnswlib.core.hnsw.HnswIndex;
import dev.kiln.config.IndexConfig;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.index.ShardSchema;
import dev.kiln.model.Chunk;
import dev.kiln.model.EmbeddedChunk;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.FSDirectory;

/**
 * The two ANN sides of the comparison, built from the same vectors with the same graph parameters
 * (M 16, construction beam 100): Kiln's shard format (Lucene HNSW through {@link ShardIndexWriter}),
 * and hnswlib-core, the design card's HNSW library. Vectors are unit length, so both use inner product.
 */
final class AnnIndexes {
  static final int M = 16;
  static final int BEAM = 100;

  private AnnIndexes() {}

  /** hnswlib needs its vectors wrapped as items. */
  record VectorItem(Integer id, float[] vector) implements Item<Integer, float[]> {
    @Override
    public int dimensions() {
      return vector.length;
    }
  }

  static HnswIndex<Integer, float[], VectorItem, Float> buildHnswlib(List<float[]> vectors) throws InterruptedException {
    HnswIndex<Integer, float[], VectorItem, Float> index = HnswIndex
        .newBuilder(vectors.get(0).length, DistanceFunctions.FLOAT_INNER_PRODUCT, vectors.size())
        .withM(M).withEfConstruction(BEAM).withEf(BEAM)
        .build();
    for (int i = 0; i < vectors.size(); i++) {
      index.add(new VectorItem(i, vectors.get(i)));
    }
    return index;
  }

  /** Kiln's own writer: the vectors become a one-segment shard exactly as the build job writes them. */
  static void buildKilnShard(Path dir, List<float[]> vectors) throws IOException {
    IndexConfig config = new IndexConfig();
    config.hnswM = M;
    config.hnswBeamWidth = BEAM;
    try (ShardIndexWriter w = new ShardIndexWriter(dir, config, vectors.get(0).length)) {
      for (int i = 0; i < vectors.size(); i++) {
        String id = Integer.toString(i);
        w.add(new EmbeddedChunk(new Chunk(id + "#0", id, 0, "", "", 0, 0, 0, Map.of()), vectors.get(i)));
      }
    }
  }

  /** Lucene's HNSW explores {@code k} candidates; asking for {@code ef} and keeping 10 is its ef. */
  static int[] luceneTop10(IndexSearcher searcher, float[] q, int ef) throws IOException {
    TopDocs top = searcher.search(new KnnFloatVectorQuery(ShardSchema.VECTOR, q, ef), ef);
    int n = Math.min(10, top.scoreDocs.length);
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = top.scoreDocs[i].doc;
    }
    return out;
  }

  static int[] hnswlibTop10(HnswIndex<Integer, float[], VectorItem, Float> index, float[] q) {
    List<SearchResult<VectorItem, Float>> r = index.findNearest(q, 10);
    int[] out = new int[r.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = r.get(i).item().id();
    }
    return out;
  }

  /** Exact top 10 by brute force: the ground truth for recall. */
  static int[] exactTop10(List<float[]> vectors, float[] q) {
    List<ScoreDoc> all = new ArrayList<>(vectors.size());
    for (int i = 0; i < vectors.size(); i++) {
      float[] v = vectors.get(i);
      float s = 0;
      for (int j = 0; j < v.length; j++) {
        s += v[j] * q[j];
      }
      all.add(new ScoreDoc(i, s));
    }
    all.sort((a, b) -> Float.compare(b.score, a.score));
    int[] out = new int[Math.min(10, all.size())];
    for (int i = 0; i < out.length; i++) {
      out[i] = all.get(i).doc;
    }
    return out;
  }

  static DirectoryReader open(Path dir) throws IOException {
    return DirectoryReader.open(FSDirectory.open(dir));
  }
}
