package dev.kiln.bench;

import dev.kiln.snapshot.LocalFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Time to build an HNSW graph over all the snapshot's vectors: Kiln's shard writer (Lucene HNSW,
 * forced to one segment, committed to disk — what a build pays) vs hnswlib-core (in memory). Single
 * shot per iteration because one build is the unit of work; one warm-up build lets both JIT.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 1)
@Measurement(iterations = 3)
public class AnnBuildBenchmark {
  BenchData data;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    data = BenchData.load();
  }

  @Benchmark
  public void kilnLuceneHnsw() throws Exception {
    Path dir = Files.createTempDirectory("kiln-bench-build");
    try {
      AnnIndexes.buildKilnShard(dir.resolve("shard"), data.vectors);
    } finally {
      LocalFiles.deleteTree(dir);
    }
  }

  @Benchmark
  public void rawHnswlib(Blackhole bh) throws Exception {
    bh.consume(AnnIndexes.buildHnswlib(data.vectors));
  }
}
