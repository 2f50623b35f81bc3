package dev.kiln.operators;

import dev.kiln.chunk.Chunker;
import dev.kiln.chunk.TokenWindowChunker;
import dev.kiln.config.ChunkerConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.util.Collector;

/** Chunk stage: documents to chunks, with the configured strategy and the model's tokenizer. */
public final class ChunkFunction extends RichFlatMapFunction<Document, Chunk> {
  private static final long serialVersionUID = 1L;

  private final ChunkerConfig config;
  private final String model;
  private transient ModelTokenizer tokenizer;
  private transient Chunker chunker;
  private transient LongCounter chunks;
  private transient StageTimer timer;

  public ChunkFunction(ChunkerConfig config, String model) {
    this.config = config;
    this.model = model;
  }

  @Override
  public void open(OpenContext ctx) {
    tokenizer = ModelTokenizer.open(ModelRegistry.resolve(model));
    chunker = new TokenWindowChunker(tokenizer, config.size, config.overlap);
    chunks = getRuntimeContext().getLongCounter(JobCounters.CHUNKS);
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_CHUNK);
  }

  @Override
  public void flatMap(Document doc, Collector<Chunk> out) {
    long start = System.nanoTime();
    var cut = chunker.chunk(doc);
    timer.add(start);
    chunks.add(cut.size());
    cut.forEach(out::collect);
  }

  @Override
  public void close() {
    if (tokenizer != null) {
      tokenizer.close();
    }
  }
}
