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
  }
}
