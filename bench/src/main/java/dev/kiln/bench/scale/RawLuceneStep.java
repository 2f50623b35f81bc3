package dev.kiln.bench.scale;

import dev.kiln.route.ShardRouter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.avro.generic.GenericRecord;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene104.Lucene104Codec;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.io.LocalInputFile;

/**
 * Child step: the baseline. The same Parquet corpus indexed by plain Lucene {@link IndexWriter}s —
 * one per shard, as many reader threads as Kiln's parallelism, the same codec settings (HNSW M and
 * beam width, dot product), analyzer, BM25 parameters, RAM buffer, the same fields indexed and stored
 * as Kiln's shard writer (ids, ordinal, title, text, vector, metadata keywords, a SHA-256 content
 * key), forced to the same segment count and committed. No Flink, no verification, no manifest.
 * Arguments: result file, corpus folder, output folder, shards, threads, M, beam width, RAM buffer MB,
 * max segments.
 */
public final class RawLuceneStep {
  private RawLuceneStep() {}

  public static void main(String[] args) throws Exception {
    try (ProcessMemory memory = new ProcessMemory()) {
      Path corpus = Path.of(args[1]);
      Path out = Path.of(args[2]);
      int shards = Integer.parseInt(args[3]);
      int threads = Integer.parseInt(args[4]);
      int m = Integer.parseInt(args[5]);
      int beam = Integer.parseInt(args[6]);
      double ramMb = Double.parseDouble(args[7]);
      int maxSegments = Integer.parseInt(args[8]);
      List<Path> files;
      try (Stream<Path> s = Files.list(corpus)) {
        files = s.filter(p -> p.toString().endsWith(".parquet")).sorted().toList();
      }
      long t0 = System.nanoTime();
      List<FSDirectory> dirs = new ArrayList<>();
      List<IndexWriter> writers = new ArrayList<>();
      for (int i = 0; i < shards; i++) {
        FSDirectory d = FSDirectory.open(out.resolve("shard-" + i));
        IndexWriterConfig iwc = new IndexWriterConfig(new EnglishAnalyzer());
        iwc.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
        iwc.setSimilarity(new BM25Similarity(0.9f, 0.4f));
        iwc.setRAMBufferSizeMB(ramMb);
        KnnVectorsFormat hnsw = new Lucene99HnswVectorsFormat(m, beam);
        iwc.setCodec(new Lucene104Codec() {
          @Override
          public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
            return hnsw;
          }
        });
        dirs.add(d);
        writers.add(new IndexWriter(d, iwc));
      }
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<Long>> added = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int me = t;
        added.add(pool.submit(() -> {
          long n = 0;
          for (int f = me; f < files.size(); f += threads) {
            n += index(files.get(f), writers, shards);
          }
          return n;
        }));
      }
      long docs = 0;
      for (Future<Long> f : added) {
        docs += f.get();
      }
      double tAdd = (System.nanoTime() - t0) / 1e9;
      List<Future<?>> merges = new ArrayList<>();
      for (IndexWriter w : writers) {
        merges.add(pool.submit(() -> {
          w.forceMerge(maxSegments);
          w.commit();
          w.close();
          return null;
        }));
      }
      for (Future<?> f : merges) {
        f.get();
      }
      pool.shutdown();
      for (FSDirectory d : dirs) {
        d.close();
      }
      double wall = (System.nanoTime() - t0) / 1e9;
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("wall_s", wall);
      r.put("add_s", tAdd);
      r.put("merge_commit_s", wall - tAdd);
      r.put("documents", docs);
      r.put("index_bytes", KilnBuildStep.bytes(out));
      r.putAll(memory.report());
      ChildRun.write(args[0], r);
    }
  }

  private static long index(Path file, List<IndexWriter> writers, int shards) throws IOException {
    String uri = file.toUri().toString().replace("file:///", "file:/");
    String modified = Instant.ofEpochMilli(Files.getLastModifiedTime(file).toMillis()).toString();
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    long n = 0;
    try (ParquetReader<GenericRecord> reader = AvroParquetReader.<GenericRecord>builder(new LocalInputFile(file))
        .withConf(new PlainParquetConfiguration()).build()) {
      for (GenericRecord r; (r = reader.read()) != null; ) {
        String id = r.get("_id").toString();
        String title = r.get("title").toString();
        String text = r.get("text").toString();
        @SuppressWarnings("unchecked")
        List<Float> list = (List<Float>) r.get("vector");
        float[] v = new float[list.size()];
        for (int i = 0; i < v.length; i++) {
          v[i] = list.get(i);
        }
        Document doc = new Document();
        doc.add(new StringField("chunk_id", id + "#0", Field.Store.YES));
        doc.add(new StringField("doc_id", id, Field.Store.YES));
        doc.add(new StoredField("ordinal", 0));
        doc.add(new StoredField("title", title));
        doc.add(new TextField("text", title + "\n" + text, Field.Store.NO));
        doc.add(new StoredField("text", text));
        doc.add(new KnnFloatVectorField("vector", v, VectorSimilarityFunction.DOT_PRODUCT));
        doc.add(new StringField("meta.source_uri", uri, Field.Store.YES));
        doc.add(new StringField("meta.modified", modified, Field.Store.YES));
        doc.add(new StringField("meta.tenant", r.get("tenant").toString(), Field.Store.YES));
        doc.add(new StringField("meta.doc_type", r.get("doc_type").toString(), Field.Store.YES));
        sha.update(title.getBytes(StandardCharsets.UTF_8));
        sha.update(text.getBytes(StandardCharsets.UTF_8));
        doc.add(new StringField("content_key", HexFormat.of().formatHex(sha.digest()), Field.Store.YES));
        writers.get(ShardRouter.shardOf(id, shards)).addDocument(doc);
        n++;
      }
    }
    return n;
  }
}
