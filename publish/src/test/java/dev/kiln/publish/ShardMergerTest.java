package dev.kiln.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.index.ShardSchema;
import dev.kiln.testing.TestSeeds;
import java.nio.file.Path;
import java.util.Random;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(TestSeeds.class)
class ShardMergerTest {
  @TempDir Path dir;

  /** A shard of {@code segments} segments holding random unit vectors. */
  private void shard(IndexConfig config, int segments, int perSegment, long seed) throws Exception {
    Random random = new Random(TestSeeds.derive("ShardMergerTest/" + seed));
    IndexWriterConfig iwc = new IndexWriterConfig(new StandardAnalyzer());
    iwc.setCodec(ShardIndexWriter.codec(config));
    iwc.setMergePolicy(NoMergePolicy.INSTANCE);
    try (FSDirectory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d, iwc)) {
      for (int s = 0; s < segments; s++) {
        for (int i = 0; i < perSegment; i++) {
          float[] v = new float[16];
          double norm = 0;
          for (int j = 0; j < v.length; j++) {
            v[j] = (float) random.nextGaussian();
            norm += v[j] * v[j];
          }
          for (int j = 0; j < v.length; j++) {
            v[j] /= (float) Math.sqrt(norm);
          }
          Document doc = new Document();
          doc.add(new KnnFloatVectorField(ShardSchema.VECTOR, v, VectorSimilarityFunction.DOT_PRODUCT));
          w.addDocument(doc);
        }
        w.commit();
      }
    }
  }

  @Test
  void mergesDownToMaxSegmentsAndKeepsEveryChunk() throws Exception {
    IndexConfig config = new IndexConfig();
    config.maxSegments = 2;
    shard(config, 5, 20, 1);
    ShardMerger.MergeResult r = ShardMerger.merge(0, dir, config);
    assertEquals(5, r.segmentsBefore());
    assertTrue(r.segmentsAfter() <= 2 && r.merged(), r.toString());
    try (FSDirectory d = FSDirectory.open(dir); DirectoryReader reader = DirectoryReader.open(d)) {
      assertEquals(100, reader.numDocs());
      assertTrue(reader.leaves().size() <= 2);
    }
    assertEquals(r.segmentsAfter(), ShardMerger.merge(0, dir, config).segmentsBefore(), "idempotent");
  }

  @Test
  void recallProbeComparesHnswWithAnExactScan() throws Exception {
    IndexConfig config = new IndexConfig();
    shard(config, 1, 300, 7);
    double recall = RecallProbe.recall(dir, 20, 10, 42);
    assertTrue(recall >= 0.9 && recall <= 1.0, "recall@10 " + recall);
    // k larger than the shard: the approximate and exact answers are the whole shard.
    assertEquals(1.0, RecallProbe.recall(dir, 5, 1000, 42), 1e-9);
  }
}
