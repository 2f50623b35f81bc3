package dev.kiln.index;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IndexConfig;
import dev.kiln.config.VectorEncoding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.codecs.lucene104.Lucene104HnswScalarQuantizedVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The shared HNSW search on real Lucene shards of seeded random vectors: clustered, so that many
 * neighbours are close (like the chunks of similar short records), and many enough (3,000) that
 * Lucene walks the graph instead of scanning.
 */
class KnnSearchTest {
  private static final int DIM = 32;
  @TempDir Path tmp;

  /** Unit vectors around 30 centroids, a little noise each. */
  static float[][] clustered(int n, long seed) {
    Random random = new Random(seed);
    float[][] centroids = new float[30][];
    for (int c = 0; c < centroids.length; c++) {
      centroids[c] = unit(gaussian(random, 1.0));
    }
    float[][] out = new float[n][];
    for (int i = 0; i < n; i++) {
      float[] noise = gaussian(random, 0.35);
      float[] c = centroids[random.nextInt(centroids.length)];
      for (int j = 0; j < DIM; j++) {
        noise[j] += c[j];
      }
      out[i] = unit(noise);
    }
    return out;
  }

  private static float[] gaussian(Random random, double scale) {
    float[] v = new float[DIM];
    for (int j = 0; j < DIM; j++) {
      v[j] = (float) (random.nextGaussian() * scale);
    }
    return v;
  }

  private static float[] unit(float[] v) {
    double norm = 0;
    for (float x : v) {
      norm += x * x;
    }
    for (int j = 0; j < v.length; j++) {
      v[j] /= (float) Math.sqrt(norm);
    }
    return v;
  }

  static Path shard(Path dir, IndexConfig config, float[][] vectors) throws Exception {
    IndexWriterConfig iwc = new IndexWriterConfig(new StandardAnalyzer());
    iwc.setCodec(ShardIndexWriter.codec(config));
    iwc.setUseCompoundFile(false); // so that each vectors file can be measured
    iwc.getMergePolicy().setNoCFSRatio(0);
    try (FSDirectory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d, iwc)) {
      for (int i = 0; i < vectors.length; i++) {
        Document doc = new Document();
        doc.add(new StoredField("i", i));
        doc.add(new KnnFloatVectorField(ShardSchema.VECTOR, vectors[i], VectorSimilarityFunction.DOT_PRODUCT));
        w.addDocument(doc);
      }
      w.forceMerge(1);
    }
    return dir;
  }

  /** Exact top-k scores for {@code query}, best first. */
  private static float[] exactScores(float[][] vectors, float[] query, int k) {
    float[] all = new float[vectors.length];
    for (int i = 0; i < vectors.length; i++) {
      all[i] = VectorSimilarityFunction.DOT_PRODUCT.compare(query, vectors[i]);
    }
    Arrays.sort(all);
    float[] top = new float[k];
    for (int i = 0; i < k; i++) {
      top[i] = all[all.length - 1 - i];
    }
    return top;
  }

  /** Mean recall@k: a hit counts when its exact score reaches the k-th best exact score. */
  private static double recall(IndexSearcher searcher, float[][] vectors, int k, int ef, boolean rescore,
      int queries) throws Exception {
    Random random = new Random(7);
    double sum = 0;
    for (int q = 0; q < queries; q++) {
      float[] query = vectors[random.nextInt(vectors.length)];
      float kth = exactScores(vectors, query, k)[k - 1];
      int hits = 0;
      for (ScoreDoc sd : KnnSearch.search(searcher, ShardSchema.VECTOR, query, k, ef, null, rescore).scoreDocs) {
        float exact = VectorSimilarityFunction.DOT_PRODUCT.compare(query, vectors[sd.doc]);
        if (exact >= kth - 1e-6f) {
          hits++;
        }
      }
      sum += (double) hits / k;
    }
    return sum / queries;
  }

  @Test
  void theAutomaticDepthGrowsWithTheSquareRootOfTheLargestSegment() {
    assertEquals(KnnSearch.DEFAULT_EF, KnnSearch.efFor(0));
    assertEquals(KnnSearch.DEFAULT_EF, KnnSearch.efFor(KnnSearch.AUTO_EF_BASE_VECTORS));
    assertEquals(141, KnnSearch.efFor(100_000));
    assertEquals(316, KnnSearch.efFor(500_000), "1M chunks in two shards: recall@10 0.96 measured at 300");
    assertEquals(KnnSearch.MAX_AUTO_EF, KnnSearch.efFor(5_000_000));
    assertEquals(KnnSearch.MAX_AUTO_EF, KnnSearch.efFor(500_000_000));
    assertEquals(250, KnnSearch.resolve(250, null), "an explicit ef is kept as asked");
  }

  @Test
  void efEqualToKIsLucenesPlainKnnQueryAndLargerEfKeepsTheBestK() throws Exception {
    float[][] vectors = clustered(3_000, 1);
    IndexConfig config = new IndexConfig();
    config.hnswM = 4;
    config.hnswBeamWidth = 8;
    try (FSDirectory d = FSDirectory.open(shard(tmp, config, vectors)); DirectoryReader reader = DirectoryReader.open(d)) {
      IndexSearcher searcher = new IndexSearcher(reader);
      float[] q = vectors[42];
      TopDocs plain = searcher.search(new KnnFloatVectorQuery(ShardSchema.VECTOR, q, 10), 10);
      TopDocs same = KnnSearch.search(searcher, ShardSchema.VECTOR, q, 10, 10, null, false);
      assertArrayEquals(docs(plain), docs(same));
      // ef 100: the best 10 of Lucene's 100, in its order.
      TopDocs wide = searcher.search(new KnnFloatVectorQuery(ShardSchema.VECTOR, q, 100), 100);
      TopDocs cut = KnnSearch.search(searcher, ShardSchema.VECTOR, q, 10, 100, null, false);
      assertArrayEquals(Arrays.copyOf(docs(wide), 10), docs(cut));
      // A k above ef is served: ef is a floor.
      assertEquals(150, KnnSearch.search(searcher, ShardSchema.VECTOR, q, 150, 100, null, false).scoreDocs.length);

      // On this poor graph (degree 4, beam 8) a walk of 10 misses neighbours that one of 100 finds.
      double narrow = recall(searcher, vectors, 10, 10, false, 50);
      double broad = recall(searcher, vectors, 10, KnnSearch.DEFAULT_EF, false, 50);
      assertTrue(broad > narrow + 0.05, "ef=10 " + narrow + " vs ef=100 " + broad);
    }
  }

  private static int[] docs(TopDocs top) {
    return Arrays.stream(top.scoreDocs).mapToInt(sd -> sd.doc).toArray();
  }

  @ParameterizedTest
  @EnumSource(VectorEncoding.class)
  void eachEncodingIsWrittenInItsFormatAndRescoredToFloat32Scores(VectorEncoding encoding) throws Exception {
    float[][] vectors = clustered(3_000, 2);
    IndexConfig config = new IndexConfig();
    config.vectorEncoding = encoding.label();
    Path dir = shard(tmp.resolve(encoding.label()), config, vectors);
    try (FSDirectory d = FSDirectory.open(dir); DirectoryReader reader = DirectoryReader.open(d)) {
      String format = reader.leaves().get(0).reader().getFieldInfos().fieldInfo(ShardSchema.VECTOR)
          .getAttribute("PerFieldKnnVectorsFormat.format");
      assertEquals(encoding.quantized() ? Lucene104HnswScalarQuantizedVectorsFormat.NAME : "Lucene99HnswVectorsFormat",
          format);
      IndexSearcher searcher = new IndexSearcher(reader);
      float[] q = vectors[7];
      TopDocs top = KnnSearch.search(searcher, ShardSchema.VECTOR, q, 10, KnnSearch.DEFAULT_EF, null,
          encoding.quantized());
      assertEquals(10, top.scoreDocs.length);
      for (int i = 0; i < top.scoreDocs.length; i++) {
        ScoreDoc sd = top.scoreDocs[i];
        // Full-precision scores, whatever the graph walked, best first.
        assertEquals(VectorSimilarityFunction.DOT_PRODUCT.compare(q, vectors[sd.doc]), sd.score, 1e-6f);
        if (i > 0) {
          assertTrue(top.scoreDocs[i - 1].score >= sd.score);
        }
      }
      double floor = switch (encoding) {
        case FLOAT32, INT8 -> 0.95;
        case INT4 -> 0.9;
        case BINARY -> 0.7;
      };
      double r = recall(searcher, vectors, 10, KnnSearch.DEFAULT_EF, encoding.quantized(), 30);
      assertTrue(r >= floor, encoding + " recall@10 " + r);
    }
    if (encoding.quantized()) {
      // The quantised copy the graph walks is smaller than the float32 vectors kept for rescoring.
      long raw = size(dir, ".vec");
      long quantized = size(dir, ".veq");
      assertTrue(quantized > 0 && quantized < raw, encoding + ": .veq " + quantized + " vs .vec " + raw);
    }
  }

  private static long size(Path dir, String suffix) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(suffix))
          .mapToLong(p -> p.toFile().length()).sum();
    }
  }
}
