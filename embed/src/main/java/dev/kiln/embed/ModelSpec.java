package dev.kiln.embed;

import java.io.Serializable;

/**
 * Everything Kiln must know to use an embedding model the way it was trained.
 *
 * @param name registry name (what {@code --model} takes and the manifest records)
 * @param onnxResource classpath resource of the ONNX file (bundled models are carried by jars)
 * @param tokenizerResource classpath resource of the HuggingFace {@code tokenizer.json}
 * @param dimension output vector size
 * @param pooling token pooling
 * @param normalize whether vectors are L2-normalised (Kiln indexes them with dot product)
 * @param maxTokens longest input in tokens, special tokens included; longer inputs are truncated
 * @param queryPrefix prepended to queries
 * @param passagePrefix prepended to passages
 */
public record ModelSpec(
    String name,
    String onnxResource,
    String tokenizerResource,
    int dimension,
    Pooling pooling,
    boolean normalize,
    int maxTokens,
    String queryPrefix,
    String passagePrefix)
    implements Serializable {}
