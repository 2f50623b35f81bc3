package dev.kiln.bench.scale;

import dev.kiln.route.ShardRouter;
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
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
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

/**
 * Child step: the baseline. The same Parquet corpus indexed by plain Lucene {@link IndexWriter}s with
 * the same codec settings (HNSW M and beam width, dot product), analyzer, BM25 parameters, RAM buffer,
 * the same fields indexed and stored as Kiln's shard writer (ids, ordinal, title, text, vector,
 * metadata keywords, a SHA-256 content key), forced to the same segment count and committed. No
 * Flink, no verification, no manifest.
 *
 * <p>Made fair (docs/results/README.md, rule 8; issue 47.1): <b>one thread per writer</b>. Thread
 * {@code i} owns shard {@code i}'s writer and alone adds the documents routed to it, so each writer
 * has one indexing thread and one in-memory segment filling up to the whole RAM buffer (before, both
 * threads fed both writers: two half-size segments per writer, more flushes, more HNSW graphs to
 * merge). The documents reach it through a bounded queue from reader threads — as many as Kiln's
 * parallelism, at most one per file, each reading whole files of its own — that read the rows
 * ({@link RawRows}: vectors as primitive floats, not Avro's boxed list), build the documents and route
 * them with Kiln's {@link ShardRouter}. Routing rather than splitting the files between the writers,
 * because the corpus has one file per 50,000 records (a 20k corpus is one file, which a file split
 * would give to one thread) and a thread per shard reading every file would read the corpus twice;
 * routing also gives each shard exactly Kiln's records ({@code shard_documents}).
 * Arguments: result file, corpus folder, output folder, shards, threads (reader threads), M, beam
 * width, RAM buffer MB, max segments.
 */
public final class RawLuceneStep {
  /** Documents per hand-over to a writer's thread: few enough queue operations to be negligible. */
  private static final int BATCH = 256;
  /** The end of a writer's input. */
  private static final List<Document> END = List.of();

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
      int readers = Math.max(1, Math.min(threads, files.size()));
      long t0 = System.nanoTime();
      List<FSDirectory> dirs = new ArrayList<>();
      List<IndexWriter> writers = new ArrayList<>();
      List<BlockingQueue<List<Document>>> queues = new ArrayList<>();
      for (int i = 0; i < shards; i++) {
        FSDirectory d = FSDirectory.open(out.resolve("shard-" + i));
        dirs.add(d);
        writers.add(new IndexWriter(d, config(m, beam, ramMb)));
        queues.add(new ArrayBlockingQueue<>(8));
      }
      ExecutorService pool = Executors.newFixedThreadPool(readers + shards);
      long[] perShard = new long[shards];
      try {
        ExecutorCompletionService<Object> done = new ExecutorCompletionService<>(pool);
        for (int i = 0; i < shards; i++) {
          int shard = i;
          done.submit(() -> {
            IndexWriter w = writers.get(shard);
            for (List<Document> batch; (batch = queues.get(shard).take()) != END; ) {
              for (Document doc : batch) {
                w.addDocument(doc);
              }
              perShard[shard] += batch.size();
            }
            return null;
          });
        }
        for (int t = 0; t < readers; t++) {
          int me = t;
          done.submit(() -> {
            Router router = new Router(queues);
            for (int f = me; f < files.size(); f += readers) {
              read(files.get(f), router);
            }
            router.flush();
            return null;
          });
        }
        // A writer's thread ends only after END, or by failing: the first `readers` tasks done are the
        // readers unless something failed, and the first failure ends the step (shutdownNow below wakes
        // the threads blocked on a queue).
        for (int i = 0; i < readers; i++) {
          done.take().get();
        }
        for (BlockingQueue<List<Document>> q : queues) {
          q.put(END);
        }
        for (int i = 0; i < shards; i++) {
          done.take().get();
        }
      } finally {
        pool.shutdownNow();
      }
      double tAdd = (System.nanoTime() - t0) / 1e9;
      ExecutorService merging = Executors.newFixedThreadPool(shards);
      List<Future<?>> merges = new ArrayList<>();
      for (IndexWriter w : writers) {
        merges.add(merging.submit(() -> {
          w.forceMerge(maxSegments);
          w.commit();
          w.close();
          return null;
        }));
      }
      for (Future<?> f : merges) {
        f.get();
      }
      merging.shutdown();
      for (FSDirectory d : dirs) {
        d.close();
      }
      double wall = (System.nanoTime() - t0) / 1e9;
      long docs = 0;
      List<Long> counts = new ArrayList<>();
      for (long c : perShard) {
        docs += c;
        counts.add(c);
      }
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("wall_s", wall);
      r.put("add_s", tAdd);
      r.put("merge_commit_s", wall - tAdd);
      r.put("documents", docs);
      r.put("shard_documents", counts);
      r.put("reader_threads", readers);
      r.put("writer_threads", shards);
      r.put("parquet_reader", "parquet-java record API, primitive float converters (RawRows)");
      r.put("index_bytes", KilnBuildStep.bytes(out));
      r.putAll(memory.report());
      ChildRun.write(args[0], r);
    }
  }

  private static IndexWriterConfig config(int m, int beam, double ramMb) {
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
    return iwc;
  }

  /** One reader thread's pending batch per shard, handed to the shard's thread when full. */
  private static final class Router {
    private final List<BlockingQueue<List<Document>>> queues;
    private final List<List<Document>> pending = new ArrayList<>();

    Router(List<BlockingQueue<List<Document>>> queues) {
      this.queues = queues;
      for (int i = 0; i < queues.size(); i++) {
        pending.add(new ArrayList<>(BATCH));
      }
    }

    void add(String id, Document doc) {
      int shard = ShardRouter.shardOf(id, queues.size());
      List<Document> batch = pending.get(shard);
      batch.add(doc);
      if (batch.size() == BATCH) {
        put(shard);
      }
    }

    void flush() {
      for (int i = 0; i < pending.size(); i++) {
        if (!pending.get(i).isEmpty()) {
          put(i);
        }
      }
    }

    private void put(int shard) {
      try {
        queues.get(shard).put(pending.get(shard));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      pending.set(shard, new ArrayList<>(BATCH));
    }
  }

  private static void read(Path file, Router router) throws Exception {
    String uri = file.toUri().toString().replace("file:///", "file:/");
    String modified = Instant.ofEpochMilli(Files.getLastModifiedTime(file).toMillis()).toString();
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    RawRows.read(file, r -> {
      Document doc = new Document();
      doc.add(new StringField("chunk_id", r.id() + "#0", Field.Store.YES));
      doc.add(new StringField("doc_id", r.id(), Field.Store.YES));
      doc.add(new StoredField("ordinal", 0));
      doc.add(new StoredField("title", r.title()));
      doc.add(new TextField("text", r.title() + "\n" + r.text(), Field.Store.NO));
      doc.add(new StoredField("text", r.text()));
      doc.add(new KnnFloatVectorField("vector", r.vector(), VectorSimilarityFunction.DOT_PRODUCT));
      doc.add(new StringField("meta.source_uri", uri, Field.Store.YES));
      doc.add(new StringField("meta.modified", modified, Field.Store.YES));
      doc.add(new StringField("meta.tenant", r.tenant(), Field.Store.YES));
      doc.add(new StringField("meta.doc_type", r.docType(), Field.Store.YES));
      sha.update(r.title().getBytes(StandardCharsets.UTF_8));
      sha.update(r.text().getBytes(StandardCharsets.UTF_8));
      doc.add(new StringField("content_key", HexFormat.of().formatHex(sha.digest()), Field.Store.YES));
      router.add(r.id(), doc);
    });
  }
}
