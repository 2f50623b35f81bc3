package dev.kiln.bench;

import dev.kiln.chunk.TokenWindowChunker;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Document;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Documents per second through the window chunker vs the floor it cannot beat: one bare tokenizer
 * pass over the same documents (the chunker tokenises once and cuts by offsets). One op = all the
 * dataset's documents, re-assembled from the snapshot's chunks.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class ChunkerBenchmark {
  List<Document> documents;
  ModelTokenizer tokenizer;
  TokenWindowChunker chunker;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    BenchData data = BenchData.load();
    Map<String, StringBuilder> byDoc = new LinkedHashMap<>();
    for (int i = 0; i < data.texts.size(); i++) {
      byDoc.computeIfAbsent(data.docIds.get(i), k -> new StringBuilder()).append(data.texts.get(i)).append('\n');
    }
    documents = new ArrayList<>();
    byDoc.forEach((id, text) -> documents.add(new Document(id, "", text.toString(), Map.of(), "bench:")));
    tokenizer = ModelTokenizer.open(ModelRegistry.resolve(data.manifest.model().name()));
    chunker = new TokenWindowChunker(tokenizer, 200, 32);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    tokenizer.close();
  }

  @Benchmark
  public void kilnWindowChunker(Blackhole bh) {
    for (Document d : documents) {
      bh.consume(chunker.chunk(d));
    }
  }

  @Benchmark
  public void rawTokenizerPass(Blackhole bh) {
    for (Document d : documents) {
      bh.consume(tokenizer.tokenSpans(d.text()));
    }
  }
}
