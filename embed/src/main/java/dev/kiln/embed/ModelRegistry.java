package dev.kiln.embed;

import dev.kiln.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The models {@code --model} accepts: a bundled model by name, or a directory holding a model file,
 * {@code tokenizer.json} and {@code model.yaml} ({@link ModelDirectory}).
 */
public final class ModelRegistry {
  public static final String DEFAULT_MODEL = "all-minilm-l6-v2-q";

  private static final Map<String, ModelSpec> BUNDLED = new LinkedHashMap<>();

  static {
    register(new ModelSpec("all-minilm-l6-v2-q", "all-minilm-l6-v2-q.onnx",
        "all-minilm-l6-v2-q-tokenizer.json", 384, Pooling.MEAN, true, 256, "", ""));
    // fp32 reference of the default (quantized) model; same weights as ../shared/models' TorchScript copy.
    register(new ModelSpec("all-minilm-l6-v2", "all-minilm-l6-v2.onnx",
        "all-minilm-l6-v2-tokenizer.json", 384, Pooling.MEAN, true, 256, "", ""));
    // chunker.size auto: 480/64 for bge, measured against 200/32 on SciFact train and Cranfield
    // (docs/QUALITY.md); the other models keep the generic 200/32 until a measurement says otherwise.
    register(new ModelSpec("bge-small-en-v15-q", "bge-small-en-v1.5-q.onnx",
        "bge-small-en-v1.5-q-tokenizer.json", 384, Pooling.CLS, true, 512,
        "Represent this sentence for searching relevant passages: ", "").withChunking(480, 64));
    register(new ModelSpec("e5-small-v2-q", "e5-small-v2-q.onnx",
        "e5-small-v2-q-tokenizer.json", 384, Pooling.MEAN, true, 512, "query: ", "passage: "));
    register(new ModelSpec("bge-small-zh-v15-q", "bge-small-zh-v1.5-q.onnx",
        "bge-small-zh-v1.5-q-tokenizer.json", 512, Pooling.CLS, true, 512,
        "为这个句子生成表示以用于检索相关文章：", ""));
  }

  private ModelRegistry() {}

  private static void register(ModelSpec spec) {
    BUNDLED.put(spec.name(), spec);
  }

  public static Map<String, ModelSpec> bundled() {
    return Map.copyOf(BUNDLED);
  }

  /** A bundled model by name, or a custom model directory by path. */
  public static ModelSpec resolve(String nameOrDir) {
    ModelSpec spec = BUNDLED.get(nameOrDir);
    if (spec != null) {
      return spec;
    }
    if (nameOrDir != null && !nameOrDir.isBlank() && Files.isDirectory(Path.of(nameOrDir))) {
      return ModelDirectory.load(Path.of(nameOrDir));
    }
    throw new ConfigException("unknown model '" + nameOrDir + "' (--model / embed.model): bundled models are "
        + String.join(", ", BUNDLED.keySet()) + "; a custom model is a directory path holding "
        + ModelDirectory.DESCRIPTOR + ", the model file and tokenizer.json");
  }
}
