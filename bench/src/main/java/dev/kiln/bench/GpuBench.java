package dev.kiln.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.config.ConfigException;
import dev.kiln.embed.DeviceSelector;
import dev.kiln.embed.EmbedDevice;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelSpec;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Embedding throughput of one model on one device, as one JSON object for machines to read
 * ({@code scripts/gpu-bench.sh}): chunks/s and tokens/s of the raw embedding loop ({@link
 * EmbedBench#raw}: windows of the operator's size, model loaded and warmed before the clock) for each batch
 * size of a sweep, the best of them, and the device it ran on. A slot that wanted a GPU and fell back to
 * the CPU says so ({@code fell_back}) instead of passing CPU numbers off as GPU ones.
 *
 * <p>Usage: {@code GpuBench --corpus FILE|DIR [--chunks N] [--model NAME] [--device cpu|gpu|gpu:N]
 * [--batch-sizes 1,16,64,256] [--threads N] [--device-name TEXT] [--json-out FILE]}. The corpus is a
 * JSONL file ({@code _id}, {@code title}, {@code text}; other lines are left out) or a directory of Markdown/text files; its chunks
 * are repeated until there are {@code --chunks} (the model has no cache, so repeats cost the same).
 */
public final class GpuBench {
  private GpuBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opt;
    ObjectNode result;
    try {
      opt = options(args);
      result = run(opt);
    } catch (IllegalArgumentException | ConfigException e) {
      System.err.println("gpu-bench: " + e.getMessage());
      System.exit(2);
      return;
    }
    String json = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(result);
    String out = opt.get("json-out");
    if (out == null) {
      System.out.println(json);
    } else {
      Files.writeString(Path.of(out), json + "\n", StandardCharsets.UTF_8);
    }
  }

  /** Runs the sweep; {@code opt} holds the options without their dashes. */
  static ObjectNode run(Map<String, String> opt) throws IOException {
    Path corpus = Path.of(require(opt, "corpus"));
    int wanted = positive(opt, "chunks", "2000");
    int threads = positive(opt, "threads", Integer.toString(Runtime.getRuntime().availableProcessors()));
    String device = opt.getOrDefault("device", "gpu");
    DeviceSelector.validate(device);
    ModelSpec spec = ModelRegistry.resolve(opt.getOrDefault("model", ModelRegistry.DEFAULT_MODEL));
    EmbedDevice d = DeviceSelector.select(device, 0, spec.engine());
    List<Integer> batches = batchSizes(opt.getOrDefault("batch-sizes", d.isGpu() ? "1,16,64,256" : "1,8,32"));

    // Only as many documents as give the chunks asked for: a large corpus is not chunked whole.
    List<Document> docs = documents(corpus);
    List<Chunk> chunks = new ArrayList<>();
    for (int from = 0; from < docs.size() && chunks.size() < wanted; from += 64) {
      chunks.addAll(EmbedBench.chunk(spec, docs.subList(from, Math.min(docs.size(), from + 64))));
    }
    if (chunks.isEmpty()) {
      throw new IllegalArgumentException("--corpus " + corpus + " has no text to embed");
    }
    List<String> texts = new ArrayList<>(wanted);
    long tokens = 0;
    try (ModelTokenizer tokenizer = ModelTokenizer.open(spec)) {
      List<String> distinct = chunks.stream().map(c -> c.title().isEmpty() ? c.text() : c.title() + "\n" + c.text()).toList();
      // What the model reads: its passage prefix, the text and two special tokens, truncated at its maximum.
      String prefix = spec.passagePrefix() == null ? "" : spec.passagePrefix();
      int[] counts = distinct.stream().mapToInt(t -> Math.min(tokenizer.countTokens(prefix + t) + 2, spec.maxTokens()))
          .toArray();
      for (int i = 0; i < wanted; i++) {
        texts.add(distinct.get(i % distinct.size()));
        tokens += counts[i % distinct.size()];
      }
    }

    ObjectMapper json = new ObjectMapper();
    ObjectNode r = json.createObjectNode();
    r.put("device", d.toString());
    r.put("device_requested", device);
    r.put("device_name", opt.getOrDefault("device-name", cpuName()));
    r.put("fell_back", d.fellBack());
    r.put("device_reason", d.reason());
    r.put("model", spec.name());
    r.put("precision", spec.precision().toString());
    r.put("threads", threads);
    r.put("chunks", texts.size());
    r.put("distinct_chunks", chunks.size());
    r.put("tokens", tokens);
    r.put("mean_tokens_per_chunk", Math.round(10.0 * tokens / texts.size()) / 10.0);
    ArrayNode sweep = r.putArray("batch_sweep");
    ObjectNode best = null;
    for (int batch : batches) {
      double chunksPerS = EmbedBench.raw(spec, texts, batch, threads, d);
      ObjectNode row = sweep.addObject();
      row.put("batch_size", batch);
      row.put("chunks_per_s", round(chunksPerS));
      row.put("tokens_per_s", round(chunksPerS * tokens / texts.size()));
      row.put("seconds", round(texts.size() / chunksPerS));
      if (best == null || chunksPerS > best.get("chunks_per_s").asDouble()) {
        best = row;
      }
    }
    r.put("batch_size", best.get("batch_size").asInt());
    r.put("chunks_per_s", best.get("chunks_per_s").asDouble());
    r.put("tokens_per_s", best.get("tokens_per_s").asDouble());
    return r;
  }

  /** JSONL documents, or every Markdown/text file under a directory as one document. */
  static List<Document> documents(Path corpus) throws IOException {
    List<Document> docs = new ArrayList<>();
    if (!Files.isDirectory(corpus)) {
      ObjectMapper json = new ObjectMapper();
      List<String> lines = Files.readAllLines(corpus, StandardCharsets.UTF_8);
      for (int n = 0; n < lines.size(); n++) {
        try {
          JsonNode o = json.readTree(lines.get(n));
          if (o != null && o.path("text").isTextual() && !o.path("text").asText().isBlank()) {
            String id = o.path("_id").asText("").isBlank() ? "line-" + (n + 1) : o.path("_id").asText();
            docs.add(new Document(id, o.path("title").asText(""), o.path("text").asText(), Map.of(), corpus.toString()));
          }
        } catch (IOException notARecord) {
          // a throughput benchmark needs text, not every record: a bad line is left out
        }
      }
      return docs;
    }
    try (Stream<Path> files = Files.walk(corpus)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".md") || p.toString().endsWith(".txt")).sorted().toList()) {
        docs.add(new Document(corpus.relativize(f).toString(), f.getFileName().toString(),
            Files.readString(f, StandardCharsets.UTF_8), Map.of(), f.toString()));
      }
    }
    return docs;
  }

  private static List<Integer> batchSizes(String list) {
    try {
      List<Integer> sizes = Arrays.stream(list.split(",")).map(String::trim).map(Integer::parseInt).toList();
      if (sizes.isEmpty() || sizes.stream().anyMatch(b -> b < 1)) {
        throw new NumberFormatException();
      }
      return sizes;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--batch-sizes must be positive integers separated by commas, was '" + list + "'");
    }
  }

  private static String cpuName() {
    try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
      return lines.filter(l -> l.startsWith("model name")).map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst().orElse(System.getProperty("os.arch"));
    } catch (IOException | RuntimeException e) {
      return System.getProperty("os.arch");
    }
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  private static int positive(Map<String, String> opt, String key, String fallback) {
    String v = opt.getOrDefault(key, fallback);
    try {
      int n = Integer.parseInt(v);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // the message below
    }
    throw new IllegalArgumentException("--" + key + " must be a positive integer, was '" + v + "'");
  }

  static Map<String, String> options(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
      }
      m.put(args[i].substring(2).toLowerCase(Locale.ROOT), args[++i]);
    }
    return m;
  }

  private static String require(Map<String, String> opt, String key) {
    String v = opt.get(key);
    if (v == null) {
      throw new IllegalArgumentException("--" + key + " is required");
    }
    return v;
  }
}
