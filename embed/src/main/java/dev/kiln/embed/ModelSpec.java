package dev.kiln.embed;

import java.io.Serializable;
import java.util.List;

/**
 * Everything Kiln must know to use an embedding model the way it was trained.
 *
 * @param name registry name (what {@code --model} takes and the manifest records)
 * @param modelResource the model file: a classpath resource for bundled models (carried by jars), a
 *     file name inside {@code directory} for custom models
 * @param tokenizerResource the HuggingFace {@code tokenizer.json}, resolved like {@code modelResource}
 * @param dimension output vector size
 * @param pooling token pooling
 * @param normalize whether vectors are L2-normalised (Kiln indexes them with dot product)
 * @param maxTokens longest input in tokens, special tokens included; longer inputs are truncated
 * @param queryPrefix prepended to queries (a prefix such as {@code "query: "} or a whole instruction)
 * @param passagePrefix prepended to passages
 * @param engine the DJL engine that runs the model file
 * @param directory a custom model's directory, or {@code null} for a bundled model
 * @param inputs model inputs in call order, from {@code input_ids}, {@code attention_mask},
 *     {@code token_type_ids}; {@code null} asks the model (ONNX) or uses all three (TorchScript)
 * @param precision {@code fp32}, {@code int8} (quantized) or {@code fp16}: the precision of the model
 *     file; DJL cannot cast a loaded TorchScript module or ONNX graph, so half precision means a
 *     half-precision file, which needs a GPU
 * @param chunkSize the chunk size (tokens) that {@code chunker.size: auto} takes for this model, or
 *     {@code null}: none recommended, the generic default applies
 * @param chunkOverlap the overlap that goes with {@code chunkSize}, or {@code null}: the generic default
 */
public record ModelSpec(
    String name,
    String modelResource,
    String tokenizerResource,
    int dimension,
    Pooling pooling,
    boolean normalize,
    int maxTokens,
    String queryPrefix,
    String passagePrefix,
    ModelEngine engine,
    String directory,
    List<String> inputs,
    String precision,
    Integer chunkSize,
    Integer chunkOverlap)
    implements Serializable {

  /** A model without a chunk size recommendation. */
  public ModelSpec(String name, String modelResource, String tokenizerResource, int dimension, Pooling pooling,
      boolean normalize, int maxTokens, String queryPrefix, String passagePrefix, ModelEngine engine,
      String directory, List<String> inputs, String precision) {
    this(name, modelResource, tokenizerResource, dimension, pooling, normalize, maxTokens, queryPrefix,
        passagePrefix, engine, directory, inputs, precision, null, null);
  }

  /** A bundled ONNX model carried by a jar. */
  public ModelSpec(String name, String modelResource, String tokenizerResource, int dimension,
      Pooling pooling, boolean normalize, int maxTokens, String queryPrefix, String passagePrefix) {
    this(name, modelResource, tokenizerResource, dimension, pooling, normalize, maxTokens, queryPrefix,
        passagePrefix, ModelEngine.ONNX, null, null, name.endsWith("-q") ? "int8" : "fp32");
  }

  /** This model with a recommended chunk size and overlap (measured: docs/QUALITY.md). */
  public ModelSpec withChunking(int size, int overlap) {
    return new ModelSpec(name, modelResource, tokenizerResource, dimension, pooling, normalize, maxTokens,
        queryPrefix, passagePrefix, engine, directory, inputs, precision, size, overlap);
  }

  /** Whether the model's files come from a directory rather than the classpath. */
  public boolean isCustom() {
    return directory != null;
  }

  /** What {@code --model} takes to select this model again: the directory or the name. */
  public String source() {
    return directory != null ? directory : name;
  }
}
