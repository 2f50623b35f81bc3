package dev.kiln.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.index.ShardSchema;
import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.TestSeeds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recall gate on a real HNSW graph that is too poor for its floor. Lucene searches segments of
 * fewer than 100 vectors exactly (recall 1.0 whatever the graph), so the shard here holds 3,000
 * random vectors — cheap, unlike embedding that many chunks — in a degree-2 graph built with a beam
 * of 1.
 */
@ExtendWith(TestSeeds.class)
class RecallFloorTest {
  @TempDir Path root;

  private static void shard(Path dir, IndexConfig config, int n, long seed) throws Exception {
    Random random = new Random(TestSeeds.derive("RecallFloorTest/" + seed));
    IndexWriterConfig iwc = new IndexWriterConfig(new StandardAnalyzer());
    iwc.setCodec(ShardIndexWriter.codec(config));
    try (FSDirectory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d, iwc)) {
      for (int i = 0; i < n; i++) {
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
      w.forceMerge(1);
    }
  }

  @Test
  void aShardBelowTheFloorRefusesThePublishAndCurrentStays() throws Exception {
    SnapshotLayout layout = new SnapshotLayout(root);
    SnapshotPublisher publisher = new SnapshotPublisher(layout);
    String base = SnapshotLayout.newSnapshotId();
    Path baseShard = layout.shardDir(base, 0);
    Files.createDirectories(baseShard);
    Files.writeString(baseShard.resolve("_0.cfs"), "data");
    publisher.writeManifest(new Manifest(Manifest.FORMAT_VERSION, base, "2026-12-02T00:00:00Z", null,
        new Manifest.ModelInfo("m", 16, "mean", true, 16), new Manifest.ChunkerInfo("window", 10, 2, "m"),
        new Manifest.IndexInfo("english", 0.9f, 0.4f, "dot_product", 16, 100), Map.of(),
        List.of(new Manifest.ShardEntry(0, "shard-00000", 1, 1, List.of(new Manifest.FileEntry("_0.cfs", 4,
            Checksums.sha256(baseShard.resolve("_0.cfs"))))))));
    publisher.publish(base, null, false);

    IndexConfig poor = new IndexConfig();
    poor.hnswM = 2;
    poor.hnswBeamWidth = 2;
    poor.recallProbeSamples = 50;
    poor.recallProbeK = 10;
    poor.recallFloor = 0.99f;
    String id = "20261202T120000Z-00000a";
    shard(layout.shardDir(id, 0), new IndexConfig(), 3_000, 1); // default graph: reaches the floor
    shard(layout.shardDir(id, 1), poor, 3_000, 2);

    SnapshotException e = assertThrows(SnapshotException.class, () -> RecallFloor.enforce(layout, id, List.of(0, 1), poor));
    String msg = e.getMessage();
    Matcher m = Pattern.compile("shard 1 recall@10 (0\\.\\d{3})").matcher(msg);
    assertTrue(m.find(), msg);
    assertTrue(Double.parseDouble(m.group(1)) < 0.99, msg);
    assertTrue(msg.contains("will not be published") && msg.contains("index.recall-floor 0.99"), msg);
    assertFalse(msg.contains("shard 0 "), "shard 0 reaches the floor: " + msg);
    assertEquals(base, new SnapshotStore(root).currentId(), "CURRENT unchanged");

    // A floor the poor graph reaches passes and reports the lowest recall.
    poor.recallFloor = 0.0f;
    double min = RecallFloor.enforce(layout, id, List.of(0, 1), poor);
    assertEquals(Double.parseDouble(m.group(1)), min, 0.0005);
  }
}
