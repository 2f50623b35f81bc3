package dev.kiln.bench;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.index.ShardSchema;
import dev.kiln.model.Chunk;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.snapshot.LocalFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Writing one shard from the same chunks and vectors: Kiln's {@link ShardIndexWriter} vs a raw Lucene
 * {@link IndexWriter} with the same analyzer, similarity, fields and HNSW defaults, both forced to one
 * segment and committed. Shows what Kiln's shard writer adds on top of Lucene. Single shot: one shard
 * build is the unit of work; one warm-up build lets both JIT.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 1)
@Measurement(iterations = 3)
public class ShardBuildBenchmark {
  BenchData data;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    data = BenchData.load();
  }

  @Benchmark
  public void kilnShardWriter() throws Exception {
    Path dir = Files.createTempDirectory("kiln-bench-shard");
    try (ShardIndexWriter w = new ShardIndexWriter(dir.resolve("s"), new IndexConfig(), data.vectors.get(0).length)) {
      for (int i = 0; i < data.vectors.size(); i++) {
        String doc = data.docIds.get(i);
        w.add(new EmbeddedChunk(new Chunk(data.chunkIds.get(i), doc, 0, "", data.texts.get(i), 0, 0, 0, Map.of()),
            data.vectors.get(i)));
      }
    } finally {
      LocalFiles.deleteTree(dir);
    }
  }

  @Benchmark
  public void rawLuceneIndexWriter() throws Exception {
    Path dir = Files.createTempDirectory("kiln-bench-raw");
    try (FSDirectory d = FSDirectory.open(dir)) {
      IndexWriterConfig iwc = new IndexWriterConfig(new EnglishAnalyzer());
      iwc.setSimilarity(new BM25Similarity(0.9f, 0.4f));
      iwc.setRAMBufferSizeMB(64);
      try (IndexWriter w = new IndexWriter(d, iwc)) {
        for (int i = 0; i < data.vectors.size(); i++) {
          Document doc = new Document();
          doc.add(new StringField(ShardSchema.CHUNK_ID, data.chunkIds.get(i), Field.Store.YES));
          doc.add(new StringField(ShardSchema.DOC_ID, data.docIds.get(i), Field.Store.YES));
          doc.add(new TextField(ShardSchema.TEXT, data.texts.get(i), Field.Store.YES));
          doc.add(new KnnFloatVectorField(ShardSchema.VECTOR, data.vectors.get(i), VectorSimilarityFunction.DOT_PRODUCT));
          w.addDocument(doc);
        }
        w.forceMerge(1);
        w.commit();
      }
    } finally {
      LocalFiles.deleteTree(dir);
    }
  }
}
