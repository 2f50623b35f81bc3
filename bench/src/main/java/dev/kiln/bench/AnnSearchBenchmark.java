package dev.kiln.bench;

import com.github.jelmerk.hnswlib.core.hnsw.HnswIndex;
import dev.kiln.snapshot.LocalFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
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
 * Queries per second of Kiln's ANN (Lucene HNSW in a Kiln shard) and of hnswlib-core on the same
 * real embeddings and query vectors, at ef 50 / 100 / 200. One op = one query (cycling through the
 * dataset's queries).
 *
 * <p>One fork: both sides run in the same JVM image and the ratio, not the absolute, is what is
 * reported. Two 2-second warm-ups let C2 compile both search loops and the Panama vector code; the
 * heap is fixed at 2 GiB so neither side's GC behaviour depends on the machine.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class AnnSearchBenchmark {
  @Param({"50", "100", "200"})
  public int ef;

  BenchData data;
  Path dir;
  DirectoryReader reader;
  IndexSearcher lucene;
  HnswIndex<Integer, float[], AnnIndexes.VectorItem, Float> hnswlib;
  int next;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    data = BenchData.load();
    dir = Files.createTempDirectory("kiln-bench-ann");
    AnnIndexes.buildKilnShard(dir.resolve("shard"), data.vectors);
    reader = AnnIndexes.open(dir.resolve("shard"));
    lucene = new IndexSearcher(reader);
    hnswlib = AnnIndexes.buildHnswlib(data.vectors);
    hnswlib.setEf(ef);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    reader.close();
    LocalFiles.deleteTree(dir);
  }

  private float[] nextQuery() {
    float[] q = data.queryVectors[next];
    next = (next + 1) % data.queryVectors.length;
    return q;
  }

  @Benchmark
  public void kilnLuceneHnsw(Blackhole bh) throws Exception {
    bh.consume(AnnIndexes.luceneTop10(lucene, nextQuery(), ef));
  }

  @Benchmark
  public void rawHnswlib(Blackhole bh) {
    bh.consume(AnnIndexes.hnswlibTop10(hnswlib, nextQuery()));
  }
}
