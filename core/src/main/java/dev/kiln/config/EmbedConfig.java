package dev.kiln.config;

import java.io.Serializable;

/** The embedding stage. */
public class EmbedConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Bundled model name (e.g. {@code all-minilm-l6-v2-q}) or a model directory. */
  public String model = "all-minilm-l6-v2-q";
  /** Chunks per inference call. */
  public int batchSize = 32;
  /** Intra-op threads per embedding slot; 0 = cores / parallelism. */
  public int threads = 0;
  /** Device of each embedding slot: {@code auto} (GPU subtask mod visible GPUs, else CPU), {@code cpu}, {@code gpu}, {@code gpu:N}. */
  public String device = "auto";
  /** Reuse stored vectors of chunks whose content key is unchanged ({@code --no-reuse} turns it off). */
  public boolean reuse = true;
  /** Snapshot to reuse vectors from; empty = the one {@code CURRENT} names ({@code --reuse-from ID}). */
  public String reuseFrom = "";

  void validate() {
    if (model == null || model.isBlank()) {
      throw new ConfigException("embed.model must name a bundled model or a model directory");
    }
    if (batchSize < 1 || batchSize > 4096) {
      throw new ConfigException("embed.batch-size must be in 1..4096, was " + batchSize);
    }
    if (threads < 0) {
      throw new ConfigException("embed.threads must be >= 0, was " + threads);
    }
    if (device == null || !device.matches("auto|cpu|gpu|gpu:[0-9]+")) {
      throw new ConfigException("embed.device must be auto, cpu, gpu or gpu:N, was '" + device + "'");
    }
    if (reuseFrom != null && !reuseFrom.isEmpty() && !dev.kiln.snapshot.SnapshotLayout.isSnapshotId(reuseFrom)) {
      throw new ConfigException("--reuse-from / embed.reuse-from must be a snapshot id such as "
          + "20261202T131755Z-3fa9c1, was '" + reuseFrom + "'");
    }
  }
}
