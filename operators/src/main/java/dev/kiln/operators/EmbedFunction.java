package dev.kiln.operators;

import dev.kiln.chunk.EmbeddingInput;
import dev.kiln.config.EmbedConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.model.Chunk;
import dev.kiln.model.EmbeddedChunk;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapPartitionFunction;
import org.apache.flink.util.Collector;

/**
 * Embed stage. One predictor per slot, loaded once and reused for every batch. Chunks are gathered
 * into windows of several batches so the embedder can bucket them by token length before padding.
 */
public final class EmbedFunction extends RichMapPartitionFunction<Chunk, EmbeddedChunk> {
  private static final long serialVersionUID = 1L;
  /** Batches per length-bucketing window: wider windows pad less but hold more chunks in memory. */
  private static final int BATCHES_PER_WINDOW = 8;

  private final EmbedConfig config;
  private final int threads;
  private final boolean breadcrumbPrefix;
  private transient TextEmbedder embedder;
  private transient LongCounter embedded;
  private transient LongCounter truncated;
  private transient StageTimer timer;

  /** @param threads inference threads for this slot */
  public EmbedFunction(EmbedConfig config, int threads) {
    this(config, threads, true);
  }

  /** @param breadcrumbPrefix embed structured chunks under their breadcrumb instead of the title */
  public EmbedFunction(EmbedConfig config, int threads, boolean breadcrumbPrefix) {
    this.config = config;
    this.threads = threads;
    this.breadcrumbPrefix = breadcrumbPrefix;
  }

  @Override
  public void open(OpenContext ctx) {
    embedder = TextEmbedder.open(ModelRegistry.resolve(config.model), config.batchSize, threads);
    embedded = getRuntimeContext().getLongCounter(JobCounters.CHUNKS_EMBEDDED);
    truncated = getRuntimeContext().getLongCounter(JobCounters.CHUNKS_TRUNCATED);
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_EMBED);
  }

  @Override
  public void mapPartition(Iterable<Chunk> chunks, Collector<EmbeddedChunk> out) {
    int window = config.batchSize * BATCHES_PER_WINDOW;
    List<Chunk> pending = new ArrayList<>(window);
    for (Chunk c : chunks) {
      pending.add(c);
      if (pending.size() == window) {
        flush(pending, out);
      }
    }
    flush(pending, out);
  }

  private void flush(List<Chunk> pending, Collector<EmbeddedChunk> out) {
    if (pending.isEmpty()) {
      return;
    }
    long start = System.nanoTime();
    long truncatedBefore = embedder.truncatedCount();
    List<String> texts = new ArrayList<>(pending.size());
    for (Chunk c : pending) {
      texts.add(EmbeddingInput.of(c, breadcrumbPrefix));
    }
    float[][] vectors = embedder.embedPassages(texts);
    timer.add(start);
    embedded.add(pending.size());
    truncated.add(embedder.truncatedCount() - truncatedBefore);
    for (int i = 0; i < vectors.length; i++) {
      out.collect(new EmbeddedChunk(pending.get(i), vectors[i]));
    }
    pending.clear();
  }

  /** The title (or breadcrumb) gives every chunk its context; it is short, so it costs few tokens. */
  static String embeddingInput(Chunk c) {
    return EmbeddingInput.of(c, true);
  }

  @Override
  public void close() {
    if (embedder != null) {
      embedder.close();
    }
  }
}
