package dev.kiln.config;

import dev.kiln.snapshot.SnapshotLayout;
import java.io.Serializable;

/** The embedding stage. */
public class EmbedConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Bundled model name (e.g. {@code all-minilm-l6-v2-q}) or a model directory. */
  public String model = "all-minilm-l6-v2-q";
  /**
   * Chunks per inference call; 0 = auto: {@value #AUTO_CPU_BATCH} on a CPU slot, {@value #AUTO_GPU_BATCH}
   * on a GPU. On the CPU one text per call is both faster (no padding) and exact: the bundled int8
   * models quantise activations dynamically over the whole input tensor, so in a padded batch a
   * text's vector depends on which other texts share its batch, and with it on parallelism and
   * partitioning (docs/QUALITY.md, "Batch-independent vectors").
   */
  public int batchSize = 0;

  public static final int AUTO_CPU_BATCH = 1;
  public static final int AUTO_GPU_BATCH = 32;

  /** The batch size a slot uses: the configured one, else the device's automatic one. */
  public int effectiveBatchSize(boolean gpu) {
    return batchSize > 0 ? batchSize : (gpu ? AUTO_GPU_BATCH : AUTO_CPU_BATCH);
  }
  /** Intra-op threads per embedding slot; 0 = cores / parallelism. */
  public int threads = 0;
  /** Device of each embedding slot: {@code auto} (GPU subtask mod visible GPUs, else CPU), {@code cpu}, {@code gpu}, {@code gpu:N}. */
  public String device = "auto";
  /** Reuse stored vectors of chunks whose content key is unchanged ({@code --no-reuse} turns it off). */
  public boolean reuse = true;
  /** Snapshot to reuse vectors from; empty = the one {@code CURRENT} names ({@code --reuse-from ID}). */
  public String reuseFrom = "";
  /**
   * Vectors each embed subtask remembers from this build, so that an identical chunk (same content key:
   * a repeated document, boilerplate on every page) is embedded once; least recently used first out.
   * About 1.6 KB a 384-d vector: the default holds 16 MB per slot. 0 turns the cache off (identical
   * chunks in one window are still embedded once).
   */
  public int dedupCache = 10_000;
  /**
   * Stored vectors per part file before it is closed, checksummed and (remote root) uploaded: what a
   * failed or killed build keeps for the next one to reuse. Also closed after {@link #partSeconds}.
   */
  public long partChunks = 10_000;
  /** Seconds before an open part is closed even if not full: bounds the embedding a crash can lose. */
  public long partSeconds = 300;
  /**
   * Whether vectors the records carry are also copied into the snapshot's stored vectors. Off by
   * default: the corpus already holds them and the shards index them, a corpus that supplies vectors
   * supplies them again next time, and a supplied chunk then goes from the chunker straight to its
   * shard writer without the embed stage's shuffle (at a million 384-d chunks the copy was 1.6 GB, a
   * third of the snapshot). On: the snapshot stays a complete source of vectors for a later build
   * whose records come without them.
   */
  public boolean storeSupplied = false;

  void validate() {
    if (model == null || model.isBlank()) {
      throw new ConfigException("embed.model must name a bundled model or a model directory");
    }
    if (batchSize < 0 || batchSize > 4096) {
      throw new ConfigException("embed.batch-size must be 0 (auto) or in 1..4096, was " + batchSize);
    }
    if (threads < 0) {
      throw new ConfigException("embed.threads must be >= 0, was " + threads);
    }
    if (device == null || !device.matches("auto|cpu|gpu|gpu:[0-9]+")) {
      throw new ConfigException("embed.device must be auto, cpu, gpu or gpu:N, was '" + device + "'");
    }
    if (partChunks < 1 || partSeconds < 1) {
      throw new ConfigException("embed.part-chunks and embed.part-seconds must be >= 1, were " + partChunks
          + " and " + partSeconds);
    }
    if (dedupCache < 0) {
      throw new ConfigException("embed.dedup-cache must be >= 0, was " + dedupCache);
    }
    if (reuseFrom != null && !reuseFrom.isEmpty() && !SnapshotLayout.isSnapshotId(reuseFrom)) {
      throw new ConfigException("--reuse-from / embed.reuse-from must be a snapshot id such as "
          + "20261202T131755Z-3fa9c1, was '" + reuseFrom + "'");
    }
  }
}
