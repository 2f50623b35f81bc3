package dev.kiln.jobs;

import dev.kiln.config.AutoTokens;
import dev.kiln.config.BuildConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where {@code chunker.size: auto} meets the model: the chunk size follows the embedding model's
 * recommendation ({@link ModelSpec#chunkSize}, measured per bundled model in docs/QUALITY.md, or a
 * custom model's {@code chunk-size}). It runs before anything chunks, logs or fingerprints the
 * settings, so the effective config, every content key and the manifest carry the size the build cut at.
 */
public final class ModelChunking {
  private static final Logger LOG = LoggerFactory.getLogger(ModelChunking.class);

  private ModelChunking() {}

  /** The model {@code config} names; its {@code auto} chunk sizes are replaced by what that model takes. */
  public static ModelSpec resolve(BuildConfig config) {
    ModelSpec spec = ModelRegistry.resolve(config.embed.model);
    if (config.chunker.unresolved()) {
      String asked = AutoTokens.format(config.chunker.size) + "/" + AutoTokens.format(config.chunker.overlap);
      config.chunker.resolveAuto(spec.chunkSize(), spec.chunkOverlap(), spec.name());
      LOG.info("chunker size/overlap {} -> {}/{} for model {} ({})", asked, config.chunker.size,
          config.chunker.overlap, spec.name(), spec.chunkSize() == null ? "no recommendation: the generic default"
              : "its recommended chunk size");
    }
    return spec;
  }
}
