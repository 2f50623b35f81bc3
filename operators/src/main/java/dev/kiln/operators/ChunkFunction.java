package dev.kiln.operators;

import dev.kiln.chunk.DocumentChunker;
import dev.kiln.config.ChunkerConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.DocumentFingerprint;
import dev.kiln.model.Document;
import dev.kiln.model.ParentChunk;
import dev.kiln.model.RecordPosition;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Chunk stage: documents to chunks, with the strategy configured for each content type and the
 * model's tokenizer. Under parent-child chunking the parents go to the {@link #PARENTS} side output,
 * to be written once into the snapshot's docstore.
 */
public final class ChunkFunction extends ProcessFunction<SourcedDocument, Chunk> {
  private static final long serialVersionUID = 2L;
  public static final OutputTag<ParentChunk> PARENTS = new OutputTag<>("parents") {};

  private final ChunkerConfig config;
  private final String model;
  private final String fingerprintSettings;
  private transient ModelTokenizer tokenizer;
  private transient DocumentChunker chunker;
  private transient LongCounter chunks;
  private transient LongCounter parents;
  private transient LongCounter oversize;
  private transient StageTimer timer;

  public ChunkFunction(ChunkerConfig config, String model) {
    this(config, model, null);
  }

  /**
   * @param fingerprintSettings the build-settings fingerprint of every {@link DocumentFingerprint} the
   *     chunks carry into the shard (what lets the next build be incremental), or {@code null}: none
   */
  public ChunkFunction(ChunkerConfig config, String model, String fingerprintSettings) {
    this.config = config;
    this.model = model;
    this.fingerprintSettings = fingerprintSettings;
  }

  @Override
  public void open(OpenContext ctx) {
    tokenizer = ModelTokenizer.open(ModelRegistry.resolve(model));
    chunker = new DocumentChunker(tokenizer, config);
    chunks = getRuntimeContext().getLongCounter(JobCounters.CHUNKS);
    parents = getRuntimeContext().getLongCounter(JobCounters.PARENTS);
    oversize = getRuntimeContext().getLongCounter(JobCounters.CHUNKS_OVERSIZE);
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_CHUNK);
  }

  @Override
  public void processElement(SourcedDocument sourced, Context ctx, Collector<Chunk> out) {
    long start = System.nanoTime();
    Document doc = sourced.document();
    // Every piece names its record: the shard writers resolve duplicate ids by it.
    RecordPosition position = sourced.position();
    DocumentChunker.Result cut = chunker.cut(doc);
    String fingerprint = fingerprintSettings == null ? "" : DocumentFingerprint.hex(doc, fingerprintSettings);
    timer.add(start);
    chunks.add(cut.chunks().size());
    parents.add(cut.parents().size());
    for (Chunk c : cut.chunks()) {
      if (c.oversize()) {
        oversize.add(1);
      }
      out.collect((fingerprint.isEmpty() ? c : c.withDocFingerprint(fingerprint)).withSource(position));
    }
    cut.parents().forEach(p -> ctx.output(PARENTS, p.withSource(position)));
  }

  @Override
  public void close() {
    if (tokenizer != null) {
      tokenizer.close();
    }
  }
}
