package dev.kiln.search.rerank;

import dev.kiln.config.ConfigException;
import dev.kiln.embed.ModelDescriptor;
import dev.kiln.embed.ModelEngine;
import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;

/**
 * A cross-encoder directory's {@code model.yaml}, read with the schema embedding models use
 * ({@link ModelDescriptor}, kebab-case; format in {@code docs/FORMATS.md}):
 *
 * <pre>
 * model-file: model.onnx     # optional when the directory holds exactly one .onnx or .pt file
 * max-tokens: 512            # query + passage, special tokens included; longer pairs are truncated
 * batch-size: 16             # pairs per inference call
 * activation: none           # none | sigmoid, applied to the relevance logit
 * inputs: [input_ids, attention_mask, token_type_ids]   # input order for TorchScript models
 * engine: onnx               # optional: onnx | pytorch (default: by the file's extension)
 * tokenizer: tokenizer.json  # optional
 * </pre>
 *
 * The first cross-encoder directories spelled {@code model}, {@code max_tokens} and {@code batch_size};
 * those still work, with a deprecation warning in the log.
 */
public final class CrossEncoderConfig {
  public static final String FILE = ModelDescriptor.FILE;
  public static final String TOKENIZER = "tokenizer.json";

  /** The model file, relative to the directory. */
  public String model;
  public int maxTokens = 512;
  public int batchSize = 16;
  public String activation = "none";
  public List<String> inputs = ModelDescriptor.KNOWN_INPUTS;
  /** The tokenizer file, relative to the directory. */
  public String tokenizer = TOKENIZER;
  private ModelEngine engine;

  /** Reads and checks {@code dir/model.yaml}; errors name the file and key to fix. */
  public static CrossEncoderConfig read(Path dir) {
    Path file = dir.resolve(FILE);
    if (!Files.isRegularFile(file)) {
      throw new SettingException(Setting.RERANKER, " " + dir + " has no " + FILE
          + " (a cross-encoder directory holds the model file, tokenizer.json and model.yaml)");
    }
    ModelDescriptor d = ModelDescriptor.read(file);
    d.keyOutside(ModelDescriptor.CROSS_ENCODER_KEYS).ifPresent(key -> {
      throw new SettingException(file + ": '" + key + "' does not apply to a cross-encoder (", Setting.RERANKER,
          " DIR); its keys are " + new TreeSet<>(ModelDescriptor.CROSS_ENCODER_KEYS));
    });
    d.checkInputs(file);
    CrossEncoderConfig c = new CrossEncoderConfig();
    if (d.tokenizer != null) {
      c.tokenizer = d.tokenizer;
    }
    if (!Files.isRegularFile(dir.resolve(c.tokenizer))) {
      throw new SettingException(Setting.RERANKER, " " + dir + " has no " + c.tokenizer);
    }
    c.model = d.modelFile != null ? d.modelFile : ModelDescriptor.findModelFile(dir, file);
    if (!Files.isRegularFile(dir.resolve(c.model))) {
      throw new ConfigException(file + ": 'model-file' must name a file in " + dir + ", was " + c.model);
    }
    try {
      c.engine = d.engine != null ? ModelEngine.parse(d.engine) : ModelEngine.forFile(c.model);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(file + ": 'model-file' must be an .onnx or TorchScript .pt file, or 'engine' name"
          + " its engine: " + e.getMessage());
    }
    c.maxTokens = d.maxTokens != null ? d.maxTokens : c.maxTokens;
    c.batchSize = d.batchSize != null ? d.batchSize : c.batchSize;
    c.activation = d.activation != null ? d.activation : c.activation;
    c.inputs = d.inputs != null ? List.copyOf(d.inputs) : c.inputs;
    if (c.maxTokens < 2) {
      throw new ConfigException(file + ": 'max-tokens' must be >= 2, was " + c.maxTokens);
    }
    if (c.batchSize < 1) {
      throw new ConfigException(file + ": 'batch-size' must be >= 1, was " + c.batchSize);
    }
    if (!c.activation.equals("none") && !c.activation.equals("sigmoid")) {
      throw new ConfigException(file + ": 'activation' must be none or sigmoid, was " + c.activation);
    }
    return c;
  }

  /** The DJL engine for the model file. */
  public String engine() {
    return engine.djlName();
  }
}
