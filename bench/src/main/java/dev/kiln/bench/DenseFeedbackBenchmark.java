package dev.kiln.bench;

import dev.kiln.index.ShardSchema;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.Searcher;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.search.rewrite.DenseFeedback;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.FSDirectory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What hybrid search's dense side costs, with and without vector feedback ({@link DenseFeedback}:
 * a first pass, three vectors read from the index, a second pass), against one bare Lucene HNSW
 * query over the same shards that loads its hits' stored fields, as any caller wanting the text must.
 * Depth 100 = hybrid's default dense depth; query vectors are precomputed, so model time is not in
 * it. One op = one query. Longer warm-up than the other benchmarks: the stored-field path keeps
 * getting faster for several iterations.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 6, time = 2)
@Measurement(iterations = 5, time = 2)
public class DenseFeedbackBenchmark {
  private static final int DEPTH = SearchOptions.DEFAULT_CANDIDATE_DEPTH;

  @Param({"off", "on"})
  public String feedback;

  BenchData data;
  Searcher kiln;
  IndexReader rawReader;
  IndexSearcher raw;
  int next;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    data = BenchData.load();
    DenseFeedback f = feedback.equals("on") ? DenseFeedback.DEFAULT : DenseFeedback.OFF;
    kiln = Searcher.builder().root(BenchData.snapshotsRoot()).snapshot(data.snapshotId)
        .options(SearchOptions.defaults().withDenseFeedback(f)).build();
    SnapshotStore store = new SnapshotStore(BenchData.snapshotsRoot());
    List<IndexReader> shards = new ArrayList<>();
    for (Manifest.ShardEntry s : data.manifest.shards()) {
      shards.add(DirectoryReader.open(FSDirectory.open(
          store.layout().snapshotDir(data.snapshotId).resolve(s.directory()))));
    }
    rawReader = new MultiReader(shards.toArray(new IndexReader[0]), true);
    raw = new IndexSearcher(rawReader);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    kiln.close();
    rawReader.close();
  }

  private float[] nextVector() {
    float[] q = data.queryVectors[next];
    next = (next + 1) % data.queryVectors.length;
    return q;
  }

  @Benchmark
  public void kilnHybridDenseSide(Blackhole bh) {
    bh.consume(kiln.denseWithFeedback(nextVector(), DEPTH, MetadataFilter.none()));
  }

  @Benchmark
  public void rawLuceneKnn(Blackhole bh) throws IOException {
    TopDocs top = raw.search(new KnnFloatVectorQuery(ShardSchema.VECTOR, nextVector(), DEPTH), DEPTH);
    StoredFields stored = raw.storedFields();
    for (ScoreDoc sd : top.scoreDocs) {
      bh.consume(stored.document(sd.doc));
    }
  }
}
