package dev.kiln.operators;

import dev.kiln.chunk.DocumentChunker;
import dev.kiln.config.ChunkerConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import dev.kiln.model.DocumentFingerprint;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.ParentChunk;
import dev.kiln.model.RecordPosition;
import dev.kiln.operators.types.KilnTypeInfo;
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
  /**
   * Chunks whose record carried its vector, when they bypass the embed stage ({@code embed.store-supplied:
   * false}): ready for the shard writers, counted as supplied here.
   */
  public static final OutputTag<EmbeddedChunk> SUPPLIED = new OutputTag<>("supplied", KilnTypeInfo.EMBEDDED_CHUNK);

  private final ChunkerConfig config;
  private final String model;
  private final String fingerprintSettings;
  private final boolean suppliedAround;
  private transient LongCounter supplied;
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
    this(config, model, fingerprintSettings, false);
  }

  /** @param suppliedAround chunks with a supplied vector leave through {@link #SUPPLIED}, not the main output */
  public ChunkFunction(ChunkerConfig config, String model, String fingerprintSettings, boolean suppliedAround) {
    this.config = config;
    this.model = model;
    this.fingerprintSettings = fingerprintSettings;
    this.suppliedAround = suppliedAround;
  }

  @Override
  public void open(OpenContext ctx) {
    NativeLibraries.check(getRuntimeContext());
    tokenizer = NativeLibraries.load(() -> ModelTokenizer.open(ModelRegistry.resolve(model)));
    chunker = new DocumentChunker(tokenizer, config);
    chunks = getRuntimeContext().getLongCounter(JobCounters.CHUNKS);
    parents = getRuntimeContext().getLongCounter(JobCounters.PARENTS);
    oversize = getRuntimeContext().getLongCounter(JobCounters.CHUNKS_OVERSIZE);
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_CHUNK);
    if (suppliedAround) {
      supplied = getRuntimeContext().getLongCounter(JobCounters.CHUNKS_SUPPLIED);
    }
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
      Chunk piece = (fingerprint.isEmpty() ? c : c.withDocFingerprint(fingerprint)).withSource(position);
      if (suppliedAround && piece.vector() != null) {
        supplied.add(1);
        ctx.output(SUPPLIED, new EmbeddedChunk(piece.withVector(null), piece.vector())); // the vector once
      } else {
        out.collect(piece);
      }
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
