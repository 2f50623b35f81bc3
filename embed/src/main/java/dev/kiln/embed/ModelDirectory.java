package dev.kiln.embed;

import dev.kiln.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A custom model: a directory with an ONNX or TorchScript file, {@code tokenizer.json} and
 * {@code model.yaml} ({@link ModelDescriptor}, the schema cross-encoders share) describing it with the
 * same fields as a bundled model:
 *
 * <pre>
 * name: my-minilm            # recorded in the manifest (default: the directory name)
 * dimension: 384
 * pooling: mean              # mean | cls
 * normalize: true
 * max-tokens: 256
 * query-prefix: ""           # a prefix such as "query: " or a whole instruction
 * passage-prefix: ""
 * model-file: model.onnx     # optional when the directory holds exactly one .onnx or .pt file
 * engine: onnx               # optional: onnx | pytorch (default: by the file's extension)
 * tokenizer: tokenizer.json  # optional
 * inputs: [input_ids, attention_mask, token_type_ids]   # optional: positional inputs of a TorchScript model
 * precision: fp32            # optional: fp32 | fp16 | int8, the precision of the file
 * chunk-size: 480            # optional: what chunker.size auto takes for this model (default 200)
 * chunk-overlap: 64          # optional, with chunk-size: what chunker.overlap auto takes (default 32)
 * </pre>
 */
public final class ModelDirectory {
  public static final String DESCRIPTOR = ModelDescriptor.FILE;

  private ModelDirectory() {}

  public static ModelSpec load(Path dir) {
    Path dirAbs = dir.toAbsolutePath().normalize();
    Path yaml = dirAbs.resolve(DESCRIPTOR);
    if (!Files.isRegularFile(yaml)) {
      throw new ConfigException("model directory " + dirAbs + " has no " + DESCRIPTOR
          + " (fields: dimension, pooling, normalize, max-tokens, query-prefix, passage-prefix)");
    }
    ModelDescriptor d = ModelDescriptor.read(yaml);
    d.requireOnly(ModelDescriptor.EMBEDDING_KEYS, "an embedding model (--model DIR)", yaml);
    if (d.dimension == null || d.dimension < 1) {
      throw new ConfigException(yaml + ": 'dimension' must be a positive number");
    }
    if (d.maxTokens == null || d.maxTokens < 8) {
      throw new ConfigException(yaml + ": 'max-tokens' must be at least 8");
    }
    String poolingName = d.pooling != null ? d.pooling : "mean";
    Pooling pooling;
    try {
      pooling = Pooling.valueOf(poolingName.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(yaml + ": 'pooling' must be mean or cls, was '" + poolingName + "'");
    }
    String modelFile = d.modelFile != null ? d.modelFile : ModelDescriptor.findModelFile(dirAbs, yaml);
    String tokenizer = d.tokenizer != null ? d.tokenizer : "tokenizer.json";
    String precision = d.precision != null ? d.precision : "fp32";
    if (!Files.isRegularFile(dirAbs.resolve(modelFile))) {
      throw new ConfigException(yaml + ": model file " + dirAbs.resolve(modelFile) + " not found");
    }
    if (!Files.isRegularFile(dirAbs.resolve(tokenizer))) {
      throw new ConfigException(yaml + ": tokenizer " + dirAbs.resolve(tokenizer) + " not found");
    }
    ModelEngine engine;
    try {
      engine = d.engine != null ? ModelEngine.parse(d.engine) : ModelEngine.forFile(modelFile);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(yaml + ": " + e.getMessage());
    }
    d.checkInputs(yaml);
    if (!List.of("fp32", "fp16", "int8").contains(precision)) {
      throw new ConfigException(yaml + ": 'precision' must be fp32, fp16 or int8, was '" + precision + "'");
    }
    checkChunking(d, yaml);
    String name = d.name != null && !d.name.isBlank() ? d.name : dirAbs.getFileName().toString();
    return new ModelSpec(name, modelFile, tokenizer, d.dimension, pooling, d.normalize == null || d.normalize,
        d.maxTokens, d.queryPrefix == null ? "" : d.queryPrefix, d.passagePrefix == null ? "" : d.passagePrefix,
        engine, dirAbs.toString(), d.inputs == null ? null : List.copyOf(d.inputs), precision, d.chunkSize,
        d.chunkOverlap);
  }

  /** A recommended chunk must fit the model's input: a longer one would be embedded truncated. */
  private static void checkChunking(ModelDescriptor d, Path yaml) {
    if (d.chunkSize != null && (d.chunkSize < 8 || d.chunkSize > d.maxTokens)) {
      throw new ConfigException(yaml + ": 'chunk-size' must be at least 8 and at most max-tokens (" + d.maxTokens
          + "), was " + d.chunkSize);
    }
    if (d.chunkOverlap != null && d.chunkSize == null) {
      throw new ConfigException(yaml + ": 'chunk-overlap' needs 'chunk-size' (the overlap that goes with it)");
    }
    if (d.chunkOverlap != null && (d.chunkOverlap < 0 || d.chunkOverlap >= d.chunkSize)) {
      throw new ConfigException(yaml + ": 'chunk-overlap' must be >= 0 and < chunk-size (" + d.chunkSize
          + "), was " + d.chunkOverlap);
    }
  }
}
