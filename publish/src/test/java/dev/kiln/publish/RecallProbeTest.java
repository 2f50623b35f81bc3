package dev.kiln.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.KnnSearch;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.index.ShardSchema;
import dev.kiln.snapshot.SnapshotLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field.Store;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.KnnVectorValues.DocIndexIterator;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The recall probe on real HNSW shards of seeded random unit vectors. */
class RecallProbeTest {
  @TempDir Path tmp;

  /** A shard of {@code n} unit vectors around {@code clusters} random centroids. */
  static void shard(Path dir, IndexConfig config, int n, int dim, int clusters, double noise, long seed) throws Exception {
    Random random = new Random(seed);
    float[][] centroids = new float[clusters][dim];
    for (float[] c : centroids) {
      for (int j = 0; j < dim; j++) {
        c[j] = (float) random.nextGaussian();
      }
    }
    IndexWriterConfig iwc = new IndexWriterConfig(new StandardAnalyzer());
    iwc.setCodec(ShardIndexWriter.codec(config));
    try (FSDirectory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d, iwc)) {
      for (int i = 0; i < n; i++) {
        float[] c = centroids[random.nextInt(clusters)];
        float[] v = new float[dim];
        double norm = 0;
        for (int j = 0; j < dim; j++) {
          v[j] = (float) (c[j] + random.nextGaussian() * noise);
          norm += v[j] * v[j];
        }
        for (int j = 0; j < dim; j++) {
          v[j] /= (float) Math.sqrt(norm);
        }
        Document doc = new Document();
        doc.add(new KnnFloatVectorField(ShardSchema.VECTOR, v, VectorSimilarityFunction.DOT_PRODUCT));
        w.addDocument(doc);
      }
      w.forceMerge(1);
    }
  }

  @Test
  void theProbeSearchesAtTheSearchersDepthSoSimilarRecordsPassTheFloor() throws Exception {
    // Issue 18.4: 2,000 short, similar records (one tight cluster, 256-d), the default graph.
    // Probed at ef = k = 10 they read ~0.86 < the 0.9 floor and the build was discarded; the
    // searcher walks with 100 candidates, where recall is ~0.99.
    SnapshotLayout layout = new SnapshotLayout(tmp);
    String id = "20261203T120000Z-0000aa";
    Path dir = layout.shardDir(id, 0);
    IndexConfig config = new IndexConfig();
    config.recallProbeSamples = 50;
    shard(dir, config, 2000, 256, 1, 0.3, 1);
    double atK = RecallProbe.recall(dir, 50, 10, 10, false, 1);
    assertTrue(atK < config.recallFloor, "at ef = k the probe reads " + atK);
    double min = RecallFloor.enforce(layout, id, List.of(0), config);
    assertTrue(min >= 0.95, "at the searcher's ef " + min);
    assertEquals(min, RecallProbe.recall(dir, 50, 10, KnnSearch.DEFAULT_EF, false, 1), 0.03);
    // The default probe is the searcher's depth.
    assertEquals(RecallProbe.recall(dir, 50, 10, KnnSearch.DEFAULT_EF, false, 9), RecallProbe.recall(dir, 50, 10, 9), 0);
  }

  /**
   * An incremental build probes only the segments it wrote: over a base segment whose narrow walk
   * (ef = k) misses and a new segment of 50 vectors (searched exactly by Lucene), the probe scoped to
   * the new segment reads 1.0 while the whole shard reads less.
   */
  @Test
  void aProbeScopedToTheNewSegmentsLeavesTheBaseSegmentsOut() throws Exception {
    Path dir = tmp.resolve("scoped");
    IndexConfig config = new IndexConfig();
    shard(dir, config, 2000, 256, 1, 0.3, 1);
    Set<String> base = RecallProbe.segmentNames(dir);
    Random random = new Random(7);
    try (FSDirectory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d,
        new IndexWriterConfig(new StandardAnalyzer()).setCodec(ShardIndexWriter.codec(config)))) {
      for (int i = 0; i < 50; i++) {
        w.addDocument(vectorDoc(randomUnit(random, 256)));
      }
    }
    double whole = RecallProbe.recall(dir, 50, 10, 10, false, 1);
    assertTrue(whole < 0.95, "the base segment's narrow walk misses: " + whole);
    assertEquals(1.0, RecallProbe.recall(dir, 50, 10, 10, false, 1, base), 1e-12, "only the new segment");
    assertEquals(whole, RecallProbe.recall(dir, 50, 10, 10, false, 1, Set.of()), 1e-12);
    assertEquals(1.0, RecallProbe.recall(dir, 50, 10, 10, false, 1, RecallProbe.segmentNames(dir)), 1e-12,
        "nothing new: nothing to probe");
  }

  /**
   * Deleted chunks are neither sampled nor part of the exact top k: every live vector has a deleted
   * twin, which would double every exact score and let only half of the live hits reach the k-th best.
   */
  @Test
  void deletedChunksAreLeftOutOfTheExactScan() throws Exception {
    Path dir = tmp.resolve("deleted");
    IndexConfig config = new IndexConfig();
    Random random = new Random(11);
    // No merges: a merge would drop the deleted twins from the files instead of marking them deleted.
    try (FSDirectory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d,
        new IndexWriterConfig(new StandardAnalyzer()).setCodec(ShardIndexWriter.codec(config))
            .setMergePolicy(NoMergePolicy.INSTANCE))) {
      for (int i = 0; i < 60; i++) {
        float[] v = randomUnit(random, 32);
        Document live = vectorDoc(v);
        live.add(new StringField("state", "live", Store.NO));
        w.addDocument(live);
        Document twin = vectorDoc(v);
        twin.add(new StringField("state", "gone", Store.NO));
        w.addDocument(twin);
      }
      w.deleteDocuments(new Term("state", "gone"));
    }
    try (FSDirectory d = FSDirectory.open(dir); DirectoryReader r =
        DirectoryReader.open(d)) {
      assertEquals(60, r.numDeletedDocs(), "the twins are in the files, marked deleted");
    }
    double recall = RecallProbe.recall(dir, 30, 10, KnnSearch.DEFAULT_EF, false, 3);
    assertTrue(recall >= 0.95, "live hits against live exact scores: " + recall);
  }

  /**
   * Issue 47.6: the probe reports recall on held-out queries. None of its queries is a stored vector
   * (a stored vector queried finds itself at similarity 1: the walk's target is a node of the graph),
   * yet each sits near the data.
   */
  @Test
  void probeQueriesAreHeldOutNoneIsAStoredVector() throws Exception {
    Path dir = tmp.resolve("held-out");
    shard(dir, new IndexConfig(), 500, 32, 5, 0.3, 4);
    try (FSDirectory d = FSDirectory.open(dir); DirectoryReader r = DirectoryReader.open(d)) {
      List<float[]> stored = new ArrayList<>();
      for (LeafReaderContext leaf : r.leaves()) {
        FloatVectorValues values = leaf.reader().getFloatVectorValues(ShardSchema.VECTOR);
        for (int i = 0; i < values.size(); i++) {
          stored.add(values.vectorValue(i).clone());
        }
      }
      float[][] queries = RecallProbe.queries(r, stored.size(), 200, 4);
      assertEquals(200, queries.length);
      for (float[] q : queries) {
        float best = -1;
        double norm = 0;
        for (float[] v : stored) {
          best = Math.max(best, VectorSimilarityFunction.DOT_PRODUCT.compare(q, v));
        }
        for (float x : q) {
          norm += x * x;
        }
        assertEquals(1.0, norm, 1e-4, "unit length, as the shard's dot-product vectors");
        // compare() maps a dot product d to (1 + d) / 2: a stored vector reads 1.0.
        assertTrue(best < 0.999, "a probe query is a stored vector: " + best);
        assertTrue(best > 0.8, "a probe query is near the data (a dot product above 0.6): " + best);
      }
    }
  }

  private static float[] randomUnit(Random random, int dim) {
    float[] v = new float[dim];
    double norm = 0;
    for (int j = 0; j < dim; j++) {
      v[j] = (float) random.nextGaussian();
      norm += v[j] * v[j];
    }
    for (int j = 0; j < dim; j++) {
      v[j] /= (float) Math.sqrt(norm);
    }
    return v;
  }

  private static Document vectorDoc(float[] v) {
    Document doc = new Document();
    doc.add(new KnnFloatVectorField(ShardSchema.VECTOR, v, VectorSimilarityFunction.DOT_PRODUCT));
    return doc;
  }

  @Test
  void aQuantisedShardIsProbedWithFloat32Rescoring() throws Exception {
    // int4 graph, probed as the searcher searches it: candidates rescored with the float32 vectors.
    Path dir = tmp.resolve("int4");
    IndexConfig config = new IndexConfig();
    config.vectorEncoding = "int4";
    shard(dir, config, 2000, 64, 10, 1.0, 2);
    double rescored = RecallProbe.recall(dir, 30, 10, KnnSearch.DEFAULT_EF, true, 5);
    double raw = RecallProbe.recall(dir, 30, 10, KnnSearch.DEFAULT_EF, false, 5);
    assertTrue(rescored >= 0.95, "rescored " + rescored);
    assertTrue(rescored >= raw, "rescored " + rescored + " vs quantised scores " + raw);
  }

  @Test
  void theOnePassProbeEqualsAProbeThatSortsEveryExactScorePerQuery() throws Exception {
    // Reference: the probe as first written — per sampled query, every exact score sorted, the k-th
    // best as the bar — on a narrow walk (ef = k) over three segments, so that recall is below 1 and
    // misses must be counted exactly. Ties come from duplicate vectors (forty copies of one vector, in two more segments).
    Path dir = tmp.resolve("multi");
    IndexConfig config = new IndexConfig();
    shard(dir, config, 2000, 128, 1, 0.3, 3);
    try (FSDirectory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d,
        new IndexWriterConfig(new StandardAnalyzer()).setCodec(ShardIndexWriter.codec(config)))) {
      float[] same = new float[128];
      same[0] = 1f;
      for (int i = 0; i < 40; i++) {
        Document doc = new Document();
        doc.add(new KnnFloatVectorField(ShardSchema.VECTOR, same, VectorSimilarityFunction.DOT_PRODUCT));
        w.addDocument(doc);
        if (i == 19) {
          w.commit();
        }
      }
    }
    int samples = 60;
    int k = 10;
    double expected = referenceRecall(dir, samples, k, k, 4);
    assertTrue(expected < 1.0, "the case must have misses: " + expected);
    assertEquals(expected, RecallProbe.recall(dir, samples, k, k, false, 4), 1e-12);
  }

  private static double referenceRecall(Path dir, int samples, int k, int ef, long seed) throws Exception {
    try (FSDirectory d = FSDirectory.open(dir); DirectoryReader r =
        DirectoryReader.open(d)) {
      List<float[]> vectors = new ArrayList<>();
      List<Integer> docs = new ArrayList<>();
      for (LeafReaderContext leaf : r.leaves()) {
        FloatVectorValues values = leaf.reader().getFloatVectorValues(ShardSchema.VECTOR);
        DocIndexIterator it = values.iterator();
        for (int doc = it.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
          vectors.add(values.vectorValue(it.index()).clone());
          docs.add(leaf.docBase + doc);
        }
      }
      assertTrue(r.leaves().size() >= 2, "several segments");
      // The probe's own held-out queries: this reference checks the one-pass exact scoring, not the sampling.
      float[][] queries = RecallProbe.queries(r, vectors.size(), samples, seed);
      IndexSearcher searcher = new IndexSearcher(r);
      double sum = 0;
      for (int q = 0; q < samples; q++) {
        float[] query = queries[q];
        float[] exact = new float[vectors.size()];
        for (int i = 0; i < exact.length; i++) {
          exact[i] = VectorSimilarityFunction.DOT_PRODUCT.compare(query, vectors.get(i));
        }
        float[] sorted = exact.clone();
        Arrays.sort(sorted);
        float kth = sorted[sorted.length - k];
        int hits = 0;
        for (ScoreDoc sd
            : KnnSearch.search(searcher, ShardSchema.VECTOR, query, k, ef, null, false).scoreDocs) {
          if (exact[docs.indexOf(sd.doc)] >= kth - 1e-6f) {
            hits++;
          }
        }
        sum += (double) Math.min(hits, k) / k;
      }
      return sum / samples;
    }
  }
}
