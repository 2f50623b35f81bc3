package dev.kiln.embed;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kiln.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one schema of {@code model.yaml}, in kebab-case, for both kinds of model directory: an embedding
 * model ({@code --model DIR}, {@link ModelDirectory}) and a cross-encoder ({@code --rerank-model DIR}).
 * Each kind takes its own subset of the keys ({@link #EMBEDDING_KEYS}, {@link #CROSS_ENCODER_KEYS})
 * and its own defaults; a key of the other kind is an error rather than silently ignored. Every field
 * here is null when the file does not set it.
 *
 * <p>Cross-encoder directories were first described in snake_case ({@code model}, {@code max_tokens},
 * {@code batch_size}); those spellings are still read, each with a logged deprecation warning, so
 * existing directories keep working.
 */
public final class ModelDescriptor {
  public static final String FILE = "model.yaml";
  private static final Logger LOG = LoggerFactory.getLogger(ModelDescriptor.class);

  /** Old cross-encoder spellings → the key that replaced them. */
  static final Map<String, String> DEPRECATED = Map.of("model", "model-file", "max_tokens", "max-tokens",
      "batch_size", "batch-size");

  /** The keys an embedding model's {@code model.yaml} takes. */
  public static final Set<String> EMBEDDING_KEYS = Set.of("name", "dimension", "pooling", "normalize", "max-tokens",
      "query-prefix", "passage-prefix", "model-file", "engine", "tokenizer", "inputs", "precision", "chunk-size", "chunk-overlap");
  /** The keys a cross-encoder's {@code model.yaml} takes. */
  public static final Set<String> CROSS_ENCODER_KEYS = Set.of("name", "max-tokens", "model-file", "engine",
      "tokenizer", "inputs", "batch-size", "activation");

  /** The model inputs Kiln can feed, in their usual order. */
  public static final List<String> KNOWN_INPUTS = List.of("input_ids", "attention_mask", "token_type_ids");

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
      .setPropertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE)
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /** Recorded in the manifest (embedders; default: the directory name). */
  public String name;
  /** Vector dimension (embedders, required). */
  public Integer dimension;
  /** {@code mean} or {@code cls} (embedders). */
  public String pooling;
  /** Unit-length vectors (embedders). */
  public Boolean normalize;
  /** Tokens per input: a passage (embedders, required) or a query + passage pair (cross-encoders). */
  public Integer maxTokens;
  /** Prepended to queries (embedders). */
  public String queryPrefix;
  /** Prepended to passages (embedders). */
  public String passagePrefix;
  /** The model file in the directory; optional when it holds exactly one {@code .onnx} or {@code .pt} file. */
  public String modelFile;
  /** {@code onnx} or {@code pytorch}; default: by the model file's extension. */
  public String engine;
  /** The HuggingFace tokenizer file in the directory; default {@code tokenizer.json}. */
  public String tokenizer;
  /** Positional inputs of a TorchScript model, from {@code input_ids}, {@code attention_mask}, {@code token_type_ids}. */
  public List<String> inputs;
  /** {@code fp32}, {@code fp16} or {@code int8}: the precision of the file (embedders). */
  public String precision;
  /** Tokens per chunk under {@code chunker.size: auto} (embedders; default: Kiln's generic 200). */
  public Integer chunkSize;
  /** Overlap that goes with {@code chunk-size} (embedders; requires it). */
  public Integer chunkOverlap;
  /** Pairs per inference call (cross-encoders). */
  public Integer batchSize;
  /** {@code none} or {@code sigmoid}, applied to the relevance logit (cross-encoders). */
  public String activation;

  private final Set<String> keys = new LinkedHashSet<>();
  private final List<String> deprecated = new ArrayList<>();

  /** Reads {@code yaml}; unknown keys, and a key written in both spellings, are {@link ConfigException}s. */
  public static ModelDescriptor read(Path yaml) {
    JsonNode tree;
    try {
      tree = YAML.readTree(yaml.toFile());
    } catch (IOException e) {
      throw new ConfigException("cannot read " + yaml + ": " + e.getMessage(), e);
    }
    if (tree == null || tree.isMissingNode() || tree.isNull()) {
      tree = YAML.createObjectNode();
    }
    if (!tree.isObject()) {
      throw new ConfigException(yaml + ": expected 'key: value' lines (docs/FORMATS.md), not " + tree.getNodeType());
    }
    ObjectNode kebab = YAML.createObjectNode();
    List<String> renamed = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = tree.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = e.getKey();
      String now = DEPRECATED.get(key);
      if (now != null) {
        if (tree.has(now)) {
          throw new ConfigException(yaml + ": '" + key + "' and '" + now + "' are one key; keep '" + now + "'");
        }
        LOG.warn("{}: '{}' is deprecated, write '{}' (model.yaml is kebab-case, docs/FORMATS.md)", yaml, key, now);
        renamed.add(key + " -> " + now);
        key = now;
      }
      kebab.set(key, e.getValue());
    }
    ModelDescriptor d;
    try {
      d = YAML.treeToValue(kebab, ModelDescriptor.class);
    } catch (UnrecognizedPropertyException e) {
      throw new ConfigException("unknown key '" + e.getPropertyName() + "' in " + yaml + "; known keys: "
          + new TreeSet<>(union()));
    } catch (MismatchedInputException e) {
      // A value of the wrong type ("chunk-size: many"): name the key, as the other errors do.
      String key = e.getPath().isEmpty() ? "?" : e.getPath().get(e.getPath().size() - 1).getFieldName();
      throw new ConfigException(yaml + ": '" + key + "': " + e.getOriginalMessage(), e);
    } catch (JsonProcessingException e) {
      throw new ConfigException(yaml + ": " + e.getOriginalMessage(), e);
    }
    kebab.fieldNames().forEachRemaining(d.keys::add);
    d.deprecated.addAll(renamed);
    return d;
  }

  private static Set<String> union() {
    Set<String> all = new LinkedHashSet<>(EMBEDDING_KEYS);
    all.addAll(CROSS_ENCODER_KEYS);
    return all;
  }

  /** The keys the file sets, in kebab-case. */
  public Set<String> keys() {
    return Set.copyOf(keys);
  }

  /** Deprecated spellings the file used, as {@code old -> new}. */
  public List<String> deprecated() {
    return List.copyOf(deprecated);
  }

  /** Throws unless every key the file sets belongs to {@code allowed}, naming the kind that takes it. */
  public void requireOnly(Set<String> allowed, String kind, Path yaml) {
    keyOutside(allowed).ifPresent(key -> {
      throw new ConfigException(yaml + ": '" + key + "' does not apply to " + kind + "; its keys are "
          + new TreeSet<>(allowed));
    });
  }

  /** The first key the file sets (in its order) that is not in {@code allowed}, if any. */
  public Optional<String> keyOutside(Set<String> allowed) {
    return keys.stream().filter(key -> !allowed.contains(key)).findFirst();
  }

  /** Throws unless {@code inputs} is unset or lists some of {@link #KNOWN_INPUTS}. */
  public void checkInputs(Path yaml) {
    if (inputs != null && (inputs.isEmpty() || !KNOWN_INPUTS.containsAll(inputs))) {
      throw new ConfigException(yaml + ": 'inputs' must list some of " + KNOWN_INPUTS + ", was " + inputs);
    }
  }

  /** The one {@code .onnx}/{@code .pt}/{@code .pth} file of {@code dir}, for a descriptor without {@code model-file}. */
  public static String findModelFile(Path dir, Path yaml) {
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
