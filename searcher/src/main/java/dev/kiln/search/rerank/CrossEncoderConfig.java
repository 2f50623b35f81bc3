package dev.kiln.search.rerank;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kiln.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code model.yaml} of a cross-encoder directory (format in {@code docs/FORMATS.md}):
 *
 * <pre>
 * model: model.onnx          # the file beside it: *.onnx (ONNX Runtime) or *.pt (TorchScript)
 * max_tokens: 512            # query + passage, special tokens included; longer pairs are truncated
 * batch_size: 16             # pairs per inference call
 * activation: none           # none | sigmoid, applied to the relevance logit
 * inputs: [input_ids, attention_mask, token_type_ids]   # input order for TorchScript models
 * </pre>
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public final class CrossEncoderConfig {
  public static final String FILE = "model.yaml";
  public static final String TOKENIZER = "tokenizer.json";

  @JsonProperty("model") public String model;
  @JsonProperty("max_tokens") public int maxTokens = 512;
  @JsonProperty("batch_size") public int batchSize = 16;
  @JsonProperty("activation") public String activation = "none";
  @JsonProperty("inputs") public List<String> inputs = List.of("input_ids", "attention_mask", "token_type_ids");

  /** Reads and checks {@code dir/model.yaml}; errors name the file and key to fix. */
  public static CrossEncoderConfig read(Path dir) {
    Path file = dir.resolve(FILE);
    if (!Files.isRegularFile(file)) {
      throw new ConfigException("--rerank-model " + dir + " has no " + FILE
          + " (a cross-encoder directory holds the model file, tokenizer.json and model.yaml)");
    }
    if (!Files.isRegularFile(dir.resolve(TOKENIZER))) {
      throw new ConfigException("--rerank-model " + dir + " has no " + TOKENIZER);
    }
    CrossEncoderConfig c;
    try {
      c = new ObjectMapper(new YAMLFactory()).readValue(file.toFile(), CrossEncoderConfig.class);
    } catch (IOException e) {
      throw new ConfigException("cannot read " + file + ": " + e.getMessage());
    }
    if (c.model == null || !Files.isRegularFile(dir.resolve(c.model))) {
      throw new ConfigException(file + ": 'model' must name a file in " + dir + ", was " + c.model);
    }
    String lower = c.model.toLowerCase(Locale.ROOT);
    if (!lower.endsWith(".onnx") && !lower.endsWith(".pt")) {
      throw new ConfigException(file + ": 'model' must be an .onnx or TorchScript .pt file, was " + c.model);
    }
    if (c.maxTokens < 2 || c.batchSize < 1) {
      throw new ConfigException(file + ": max_tokens must be >= 2 and batch_size >= 1");
    }
    if (!c.activation.equals("none") && !c.activation.equals("sigmoid")) {
      throw new ConfigException(file + ": activation must be none or sigmoid, was " + c.activation);
    }
    return c;
  }

  /** The DJL engine for the model file. */
  public String engine() {
    return model.toLowerCase(Locale.ROOT).endsWith(".onnx") ? "OnnxRuntime" : "PyTorch";
  }
}
