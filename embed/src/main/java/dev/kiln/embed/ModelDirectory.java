package dev.kiln.embed;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kiln.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A custom model: a directory with an ONNX or TorchScript file, {@code tokenizer.json} and
 * {@code model.yaml} describing it with the same fields as a bundled model:
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
 * </pre>
 */
public final class ModelDirectory {
  public static final String DESCRIPTOR = "model.yaml";
  private static final List<String> KNOWN_INPUTS = List.of("input_ids", "attention_mask", "token_type_ids");

  /** The fields of {@code model.yaml}. */
  public static final class Descriptor {
    public String name;
    public Integer dimension;
    public String pooling = "mean";
    public boolean normalize = true;
    public Integer maxTokens;
    public String queryPrefix = "";
    public String passagePrefix = "";
    public String modelFile;
    public String engine;
    public String tokenizer = "tokenizer.json";
    public List<String> inputs;
    public String precision = "fp32";
  }

  private ModelDirectory() {}

  public static ModelSpec load(Path dir) {
    Path dirAbs = dir.toAbsolutePath().normalize();
    Path yaml = dirAbs.resolve(DESCRIPTOR);
    if (!Files.isRegularFile(yaml)) {
      throw new ConfigException("model directory " + dirAbs + " has no " + DESCRIPTOR
          + " (fields: dimension, pooling, normalize, max-tokens, query-prefix, passage-prefix)");
    }
    Descriptor d;
    try {
      d = new ObjectMapper(new YAMLFactory())
          .setPropertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .readValue(yaml.toFile(), Descriptor.class);
    } catch (UnrecognizedPropertyException e) {
      throw new ConfigException("unknown key '" + e.getPropertyName() + "' in " + yaml
          + "; known keys: " + e.getKnownPropertyIds());
    } catch (IOException e) {
      throw new ConfigException("cannot read " + yaml + ": " + e.getMessage(), e);
    }
    if (d == null || d.dimension == null || d.dimension < 1) {
      throw new ConfigException(yaml + ": 'dimension' must be a positive number");
    }
    if (d.maxTokens == null || d.maxTokens < 8) {
      throw new ConfigException(yaml + ": 'max-tokens' must be at least 8");
    }
    Pooling pooling;
    try {
      pooling = Pooling.valueOf(d.pooling.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(yaml + ": 'pooling' must be mean or cls, was '" + d.pooling + "'");
    }
    String modelFile = d.modelFile != null ? d.modelFile : findModelFile(dirAbs, yaml);
    if (!Files.isRegularFile(dirAbs.resolve(modelFile))) {
      throw new ConfigException(yaml + ": model file " + dirAbs.resolve(modelFile) + " not found");
    }
    if (!Files.isRegularFile(dirAbs.resolve(d.tokenizer))) {
      throw new ConfigException(yaml + ": tokenizer " + dirAbs.resolve(d.tokenizer) + " not found");
    }
    ModelEngine engine;
    try {
      engine = d.engine != null ? ModelEngine.parse(d.engine) : ModelEngine.forFile(modelFile);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(yaml + ": " + e.getMessage());
    }
    if (d.inputs != null && (d.inputs.isEmpty() || !KNOWN_INPUTS.containsAll(d.inputs))) {
      throw new ConfigException(yaml + ": 'inputs' must list some of " + KNOWN_INPUTS + ", was " + d.inputs);
    }
    if (!List.of("fp32", "fp16", "int8").contains(d.precision)) {
      throw new ConfigException(yaml + ": 'precision' must be fp32, fp16 or int8, was '" + d.precision + "'");
    }
    String name = d.name != null && !d.name.isBlank() ? d.name : dirAbs.getFileName().toString();
    return new ModelSpec(name, modelFile, d.tokenizer, d.dimension, pooling, d.normalize, d.maxTokens,
        d.queryPrefix == null ? "" : d.queryPrefix, d.passagePrefix == null ? "" : d.passagePrefix,
        engine, dirAbs.toString(), d.inputs == null ? null : List.copyOf(d.inputs), d.precision);
  }

  private static String findModelFile(Path dir, Path yaml) {
    try (Stream<Path> files = Files.list(dir)) {
      List<String> candidates = files.map(p -> p.getFileName().toString())
          .filter(f -> f.endsWith(".onnx") || f.endsWith(".pt") || f.endsWith(".pth"))
          .sorted().toList();
      if (candidates.size() != 1) {
        throw new ConfigException(yaml + ": set 'model-file': the directory holds "
            + (candidates.isEmpty() ? "no .onnx or .pt file" : "several model files " + candidates));
      }
      return candidates.get(0);
    } catch (IOException e) {
      throw new ConfigException("cannot list model directory " + dir + ": " + e.getMessage(), e);
    }
  }
}
