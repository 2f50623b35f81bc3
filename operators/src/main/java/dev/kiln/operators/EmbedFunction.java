package dev.kiln.operators;

import dev.kiln.chunk.EmbeddingInput;
import dev.kiln.config.EmbedConfig;
import dev.kiln.embed.DeviceSelector;
import dev.kiln.embed.EmbedDevice;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelSpec;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.internal.PausePoint;
import dev.kiln.model.Chunk;
import dev.kiln.model.ContentKey;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.operators.fs.FlinkPartTransfer;
import dev.kiln.vectors.KeySet;
import dev.kiln.vectors.ReuseSource;
import dev.kiln.vectors.ReusedVectors;
import dev.kiln.vectors.RollingParts;
import dev.kiln.vectors.StoredVectorIndex;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.AbstractRichFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Embed stage. Chunks arrive partitioned by content key ({@link ContentKey#partition}); each subtask
 * indexes the stored vectors of its own key partition from the reuse source ({@link StoredVectorIndex}:
 * 128-bit keys on the heap, vectors in a temporary file, so reuse memory does not grow with the
 * vectors; {@link ReusedVectors}: only the parts of its partition are read, each checked against its
 * SHA-256), passes chunks whose key it
 * knows straight through, as it does chunks whose record carried a precomputed vector, gives a chunk
 * identical to one embedded earlier in this build that chunk's vector ({@link RecentVectors}; counted
 * as deduplicated), and runs the model only on the rest. One predictor per slot, loaded on the
 * first chunk that needs it and reused for every batch; chunks are gathered into windows of several
 * batches so the embedder can bucket them by token length before padding. Every vector the subtask
 * emits is also stored in this snapshot's {@code embeddings/} parts ({@link RollingParts}) for the next build.
 * With a remote snapshots root each part is written to a local temporary file and uploaded by the
 * subtask itself as it closes (so a killed build's closed parts are in the root), and remote stored vectors are downloaded before they are read: the
 * client never sees a TaskManager's disk.
 *
 * <p>Driven by {@link EmbedOperator} in the task thread: Flink's {@code mapPartition} runs its function
 * in a second thread whose output races the task thread's end-of-input watermark on the shuffle
 * writer (seen as a NullPointerException in {@code HashBasedDataBuffer} when reused chunks stream out
 * quickly).
 */
public final class EmbedFunction extends AbstractRichFunction {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(EmbedFunction.class);
  /**
   * Chunks gathered before they are sorted by length and embedded: several GPU batches' worth (a wider
   * window pads less but holds more chunks in memory); on CPU, one text per call, it only sets how often
   * vectors are flushed downstream.
   */
  public static final int WINDOW = 256;

  private final EmbedConfig config;
  private final int threads;
  private final String modelFingerprint;
  private final String keySettings;
  private final boolean breadcrumbPrefix;
  private final String vectorsDir;
  private final String partTag;
  private final ReuseSource reuse;
  private transient ModelSpec spec;
  private transient int subtask;
  /** This subtask's GPU on its TaskManager ({@link SlotPlacement}), claimed with the model; given back on close. */
  private transient SlotPlacement.Claim placement;
  private transient List<Integer> gpuIndexes;
  private transient TextEmbedder embedder;
  /** This subtask's key partition of the reusable vectors: keys on the heap, vectors in a temporary file. */
  private transient StoredVectorIndex known;
  private transient KeySet stored;
  /** This attempt's stored-vector parts, closed and checksummed as they fill (resume after a failure). */
  private transient RollingParts store;
  private transient LongCounter embedded;
  private transient LongCounter reused;
  private transient LongCounter partsRead;
  private transient LongCounter partsRefused;
  private transient LongCounter supplied;
  private transient LongCounter modelLoads;
  private transient LongCounter truncated;
  private transient LongCounter deduplicated;
  /** Vectors embedded in this build, by content key: identical chunks are embedded once. */
  private transient RecentVectors recent;
  private transient StageTimer timer;
  private transient EmbedMetrics metrics;
  /** Chunks this subtask has passed on (a large build embeds for hours): logged and shown as gauges. */
  private transient StageProgress progress;

  /**
   * @param threads inference threads for this slot
   * @param modelFingerprint the model's fingerprint; stored vectors are tagged with it
   * @param keySettings the chunker settings fingerprint that goes into every content key
   * @param breadcrumbPrefix embed structured chunks under their breadcrumb instead of the title
   * @param vectorsDir where this snapshot's part files go (a local directory or a remote URI), or
   *     {@code null} to store nothing
   * @param partTag the snapshot id the part files' names carry ({@link RollingParts#partName})
   * @param reuse stored vectors to take instead of running the model (local paths or remote URIs)
   */
  public EmbedFunction(EmbedConfig config, int threads, String modelFingerprint, String keySettings,
      boolean breadcrumbPrefix, String vectorsDir, String partTag, ReuseSource reuse) {
    this.config = config;
    this.threads = threads;
    this.modelFingerprint = modelFingerprint;
    this.keySettings = keySettings;
    this.breadcrumbPrefix = breadcrumbPrefix;
    this.vectorsDir = vectorsDir;
    this.partTag = partTag;
    this.reuse = reuse;
  }

  /** A stage that embeds everything and stores nothing (benchmarks, tests). */
  public EmbedFunction(EmbedConfig config, int threads) {
    this(config, threads, "", "", true, null, null, ReuseSource.NONE);
  }

  @Override
  public void open(OpenContext ctx) {
    NativeLibraries.check(getRuntimeContext());
    spec = ModelRegistry.resolve(config.model);
    subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    gpuIndexes = SlotPlacement.gpuIndexes(getRuntimeContext().getExternalResourceInfos(SlotPlacement.GPU_RESOURCE));
    embedded = getRuntimeContext().getLongCounter(JobCounters.CHUNKS_EMBEDDED);
    reused = getRuntimeContext().getLongCounter(JobCounters.CHUNKS_REUSED);
    partsRead = getRuntimeContext().getLongCounter(JobCounters.REUSE_PARTS_READ);
    partsRefused = getRuntimeContext().getLongCounter(JobCounters.REUSE_PARTS_REFUSED);
    supplied = getRuntimeContext().getLongCounter(JobCounters.CHUNKS_SUPPLIED);
    modelLoads = getRuntimeContext().getLongCounter(JobCounters.MODEL_LOADS);
    truncated = getRuntimeContext().getLongCounter(JobCounters.CHUNKS_TRUNCATED);
    deduplicated = getRuntimeContext().getLongCounter(JobCounters.CHUNKS_DEDUPLICATED);
    recent = new RecentVectors(config.dedupCache);
    timer = StageTimer.register(getRuntimeContext(), JobCounters.TIME_EMBED);
    progress = StageProgress.register(getRuntimeContext(), "embed", "chunks", -1);
    metrics = new EmbedMetrics(getRuntimeContext().getMetricGroup(), progress);
    stored = new KeySet();
  }

  /**
   * The stored vectors of this subtask's key partition, indexed on the first chunk that needs the
   * model: a build whose records all carry their vectors never reads them.
   */
  private StoredVectorIndex known() {
    if (known == null) {
      int subtasks = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
      long start = System.nanoTime();
      known = reuse.isEmpty() ? StoredVectorIndex.empty(spec.dimension()) : loadReusable(subtasks);
      if (!reuse.isEmpty()) {
        LOG.info("embed subtask {}/{}: {} stored vectors of key partition {} from snapshot {} (resumed from {})"
            + " loaded in {} ms", subtask, subtasks, known.size(), subtask, reuse.snapshotId(), reuse.resumedFrom(),
            (System.nanoTime() - start) / 1_000_000);
      }
    }
    return known;
  }

  /** The stored vectors of this subtask's key partition, from the parts that can hold them. */
  private StoredVectorIndex loadReusable(int subtasks) {
    try {
      ReusedVectors.Outcome o = ReusedVectors.load(FlinkPartTransfer.INSTANCE, reuse, subtask, subtasks,
          modelFingerprint, spec.dimension());
      partsRead.add(o.read());
      partsRefused.add(o.refused());
      LOG.info("embed subtask {}/{}: read {} stored-vector part(s), left {} of other partitions unread, refused {}",
          subtask, subtasks, o.read(), o.skipped(), o.refused());
      return o.index();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot index stored vectors", e);
    }
  }

  private TextEmbedder embedder() {
    if (embedder == null) {
      int visible = DeviceSelector.visibleGpus(config.device, spec.engine());
      placement = place(visible);
      EmbedDevice device = DeviceSelector.select(config.device, gpuIndexes, placement.localSlot(), visible);
      // Tests hold a slot here, placed and its device chosen, to run a second job beside it.
      PausePoint.reached("embed-placed");
      embedder = NativeLibraries.load(
          () -> TextEmbedder.open(spec, config.effectiveBatchSize(device.isGpu()), threads, device));
      modelLoads.add(1);
      metrics.device(device.toString());
    }
    return embedder;
  }

  /**
   * Claims this slot's GPU among those Flink gave the TaskManager (else those the engine sees), and logs
   * which: operators and tests read where each slot went from that line.
   */
  private SlotPlacement.Claim place(int visible) {
    if (!DeviceSelector.spreadsOverGpus(config.device)) {
      return SlotPlacement.Claim.NONE;
    }
    List<Integer> gpus = gpuIndexes;
    if (gpus.isEmpty()) {
      gpus = IntStream.range(0, visible).boxed().toList();
    }
    SlotPlacement.Claim claim = SlotPlacement.claim(gpus);
    if (claim != SlotPlacement.Claim.NONE) {
      LOG.info("embed subtask {} of job {} placed on GPU {} (seat {}, local slot {}) of this TaskManager's GPUs {}{}",
          subtask, getRuntimeContext().getJobInfo().getJobId(), claim.gpu(), claim.seat(), claim.localSlot(), gpus,
          gpuIndexes.isEmpty() ? " (visible to the engine; no Flink gpu resource)" : " (Flink gpu resource)");
    }
    return claim;
  }

  private transient List<Chunk> pending;
  private transient List<String> pendingKeys;
  /** Chunks waiting for a key already in {@link #pending}: they take its vector when the window is embedded. */
  private transient Map<String, List<Chunk>> waiting;
  private transient int waitingCount;

  /** One chunk: passed through with its stored vector, or queued for the model. */
  public void add(Chunk c, Collector<EmbeddedChunk> out) {
    // Crash tests kill the process here: the embed stage is running, whether it reuses or embeds, and
    // (a kill on the first chunk) has written nothing yet.
    PausePoint.reached("embed");
    progress.begin(); // the clock runs from the first chunk in, not the first batch out
    if (pending == null) {
      pending = new ArrayList<>();
      pendingKeys = new ArrayList<>();
      waiting = new HashMap<>();
    }
    String key = ContentKey.forChunk(keySettings, c);
    if (c.vector() != null) {
      // The record's own vector wins over a stored one: the caller made it for this build. It is
      // stored like any other, so the snapshot stays a complete source for the next build.
      float[] v = c.vector();
      supplied.add(1);
      store(key, v);
      out.collect(new EmbeddedChunk(c.withVector(null), v)); // do not ship the vector twice
      return;
    }
    float[] v = known().get(key);
    if (v != null) {
      reused.add(1);
      metrics.reused();
      store(key, v);
      out.collect(new EmbeddedChunk(c, v));
      return;
    }
    // Equal keys always reach this subtask (chunks are partitioned by content key), so a chunk seen
    // before in this build needs no second inference: one hot key costs one model call, not thousands.
    v = recent.get(key);
    if (v != null) {
      deduplicate(1);
      out.collect(new EmbeddedChunk(c, v));
      return;
    }
    List<Chunk> twins = waiting.get(key);
    if (twins != null) {
      twins.add(c);
      waitingCount++;
    } else {
      pending.add(c);
      pendingKeys.add(key);
      waiting.put(key, new ArrayList<>(0));
    }
    // Waiting twins hold memory too: a window full of repeats is embedded early.
    if (pending.size() >= WINDOW || waitingCount >= 4 * WINDOW) {
      flush(pending, pendingKeys, out);
    }
  }

  private void deduplicate(int n) {
    deduplicated.add(n);
    for (int i = 0; i < n; i++) {
      metrics.deduplicated();
    }
  }

  /** End of input: embeds what is still queued, then completes (and for a remote root uploads) the part file. */
  public void finish(Collector<EmbeddedChunk> out) {
    if (pending != null) {
      flush(pending, pendingKeys, out);
    }
    if (progress != null) {
      progress.finish();
    }
    if (store == null) {
      return;
    }
    try {
      store.roll(); // the last part: complete, checksummed, uploaded
    } catch (IOException ex) {
      throw new UncheckedIOException("cannot store vectors in " + vectorsDir, ex);
    }
  }

  private void flush(List<Chunk> pending, List<String> keys, Collector<EmbeddedChunk> out) {
    if (pending.isEmpty()) {
      return;
    }
    TextEmbedder e = embedder();
    long start = System.nanoTime();
    long truncatedBefore = e.truncatedCount();
    List<String> texts = new ArrayList<>(pending.size());
    for (Chunk c : pending) {
      // The title (or breadcrumb) gives every chunk its context; it is short, so it costs few tokens.
      texts.add(EmbeddingInput.of(c, breadcrumbPrefix));
    }
    float[][] vectors = e.embedPassages(texts);
    timer.add(start);
    embedded.add(pending.size());
    truncated.add(e.truncatedCount() - truncatedBefore);
    metrics.embedded(pending.size());
    metrics.truncated(e.truncatedCount() - truncatedBefore);
    for (int i = 0; i < vectors.length; i++) {
      String key = keys.get(i);
      store(key, vectors[i]);
      out.collect(new EmbeddedChunk(pending.get(i), vectors[i]));
      recent.put(key, vectors[i]);
      List<Chunk> twins = waiting.get(key);
      for (Chunk twin : twins) {
        out.collect(new EmbeddedChunk(twin, vectors[i]));
      }
      deduplicate(twins.size());
    }
    pending.clear();
    keys.clear();
    waiting.clear();
    waitingCount = 0;
  }

  /** Each key is stored once per subtask; equal keys always land in the same subtask. */
  private void store(String key, float[] vector) {
    if (vectorsDir == null) {
      return;
    }
    if (!stored.add(key)) {
      return; // one stored vector per key (a reused or deduplicated key arrives more than once)
    }
    try {
      if (store == null) {
        store = new RollingParts(FlinkPartTransfer.INSTANCE, vectorsDir, subtask,
            getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks(),
            getRuntimeContext().getTaskInfo().getAttemptNumber(), partTag, modelFingerprint, spec.dimension(),
            config.partChunks, config.partSeconds);
      }
      store.write(key, vector);
    } catch (IOException ex) {
      throw new UncheckedIOException("cannot store vectors in " + vectorsDir, ex);
    }
  }


  @Override
  public void close() throws Exception {
    try {
      if (store != null) {
        store.close(); // a failed attempt drops its open part; the closed ones stay for the next build
      }
    } finally {
      if (placement != null) {
        placement.close();
        placement = null;
      }
      if (embedder != null) {
        embedder.close();
      }
      if (known != null) {
        known.close();
      }
    }
  }
}
