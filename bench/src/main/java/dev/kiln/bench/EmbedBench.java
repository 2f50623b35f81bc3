package dev.kiln.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.chunk.TokenWindowChunker;
import dev.kiln.config.EmbedConfig;
import dev.kiln.embed.DeviceSelector;
import dev.kiln.embed.EmbedDevice;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelSpec;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.jobs.BuildJob;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import dev.kiln.operators.EmbedFunction;
import dev.kiln.operators.EmbedOperator;
import dev.kiln.operators.JobCounters;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * Embedding throughput, in one JVM and one run so the two sides see the same machine load:
 *
 * <ol>
 *   <li><b>raw</b>: the DJL predictor loop with nothing around it — {@link TextEmbedder} over the
 *       chunks in windows of {@link EmbedFunction#WINDOW} (what the operator does), at the operator's
 *       batch size (automatic unless {@code --batch-size}), the model loaded and warmed before the
 *       clock starts;
 *   <li><b>operator</b>: the same chunks through the Flink {@link EmbedFunction} on a mini-cluster at
 *       parallelism 1 with the same engine threads; the clock covers the whole job (cluster start,
 *       model load, serialisation), so the ratio is a lower bound on the operator's efficiency.
 * </ol>
 *
 * Each further model gets the raw loop only (chunks/s per model). {@code --compare-batch N} also runs
 * the raw loop of the first model at batch size N, alternating with the default batch three times in
 * the same JVM, and prints the time ratio (how the automatic CPU batch of one compares with batching).
 * Usage: {@code EmbedBench --corpus FILE [--docs N] [--models a,b,...] [--threads N] [--batch-size N]
 * [--compare-docs N] [--compare-batch N] [--device cpu|gpu|gpu:N]}.
 */
public final class EmbedBench {
  private EmbedBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = options(args);
    Path corpus = Path.of(require(opt, "corpus"));
    int docs = Integer.parseInt(opt.getOrDefault("docs", "100"));
    int compareDocs = Integer.parseInt(opt.getOrDefault("compare-docs", "300"));
    int threads = Integer.parseInt(opt.getOrDefault("threads",
        Integer.toString(Runtime.getRuntime().availableProcessors())));
    int batchOption = Integer.parseInt(opt.getOrDefault("batch-size", "0")); // 0: the operator's automatic size
    int compareBatch = Integer.parseInt(opt.getOrDefault("compare-batch", "0"));
    List<String> models = List.of(opt.getOrDefault("models", ModelRegistry.DEFAULT_MODEL).split(","));
    String device = opt.getOrDefault("device", "cpu");
    System.out.printf(Locale.ROOT, "+ corpus: %s%n+ compare docs: %d%n+ per-model docs: %d%n+ threads: %d%n"
        + "+ batch size: %s%n+ models: %s%n+ device: %s%n", corpus, compareDocs, docs, threads,
        batchOption == 0 ? "auto" : Integer.toString(batchOption), models, device);

    List<Document> compareSet = readDocs(corpus, compareDocs);
    List<Document> modelSet = readDocs(corpus, docs);
    for (int m = 0; m < models.size(); m++) {
      ModelSpec spec = ModelRegistry.resolve(models.get(m));
      boolean compare = m == 0 && compareDocs > 0;
      List<Chunk> chunks = chunk(spec, compare ? compareSet : modelSet);
      List<String> texts = chunks.stream().map(c -> c.title().isEmpty() ? c.text() : c.title() + "\n" + c.text()).toList();
      EmbedDevice d = DeviceSelector.select(device, 0, spec.engine());
      EmbedConfig sizing = new EmbedConfig();
      sizing.batchSize = batchOption;
      int batch = sizing.effectiveBatchSize(d.isGpu());
      double raw = raw(spec, texts, batch, threads, d);
      System.out.printf(Locale.ROOT, "RESULT model=%s precision=%s device=%s chunks=%d raw_chunks_per_s=%.2f%n",
          spec.name(), spec.precision(), d, chunks.size(), raw);
      if (compare && compareBatch > 0) {
        double timeBatch = 0;
        double timeOther = 0;
        for (int round = 0; round < 3; round++) { // alternated, so both see the same machine load
          timeBatch += texts.size() / raw(spec, texts, batch, threads, d);
          timeOther += texts.size() / raw(spec, texts, compareBatch, threads, d);
        }
        System.out.printf(Locale.ROOT, "RESULT model=%s batch=%d vs batch=%d: time ratio %.2f (3 alternated rounds)%n",
            spec.name(), batch, compareBatch, timeBatch / timeOther);
      }
      if (compare) {
        double[] op = operator(spec, chunks, batch, threads, device);
        System.out.printf(Locale.ROOT, "RESULT model=%s operator_chunks_per_s=%.2f (job wall %.1f s) "
            + "operator_busy_chunks_per_s=%.2f ratio_operator_over_raw=%.3f%n",
            spec.name(), op[0], op[2], op[1], op[0] / raw);
      }
    }
  }

  static double raw(ModelSpec spec, List<String> texts, int batch, int threads, EmbedDevice device) {
    int window = EmbedFunction.WINDOW;
    try (TextEmbedder e = TextEmbedder.open(spec, batch, threads, device)) {
      e.embedPassages(texts.subList(0, Math.min(batch, texts.size()))); // warm-up: first-call allocations
      long t0 = System.nanoTime();
      for (int from = 0; from < texts.size(); from += window) {
        e.embedPassages(texts.subList(from, Math.min(texts.size(), from + window)));
      }
      return texts.size() / ((System.nanoTime() - t0) / 1e9);
    }
  }

  /** @return {wall chunks/s, busy chunks/s, wall seconds} */
  static double[] operator(ModelSpec spec, List<Chunk> chunks, int batch, int threads, String device)
      throws Exception {
    EmbedConfig config = new EmbedConfig();
    config.device = device;
    config.model = spec.source();
    config.batchSize = batch;
    config.threads = threads;
    StreamExecutionEnvironment env = BuildJob.localEnvironment(1);
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(1);
    EmbedOperator.embed(env.fromData(chunks), new EmbedFunction(config, threads))
        .sinkTo(new DiscardingSink<>());
    long t0 = System.nanoTime();
    JobExecutionResult r = env.execute("embed bench");
    double wall = (System.nanoTime() - t0) / 1e9;
    long embedded = ((Number) r.getAccumulatorResult(JobCounters.CHUNKS_EMBEDDED)).longValue();
    long busyNs = ((Number) r.getAccumulatorResult(JobCounters.TIME_EMBED)).longValue();
    if (embedded != chunks.size()) {
      throw new IllegalStateException("operator embedded " + embedded + " of " + chunks.size() + " chunks");
    }
    return new double[] {embedded / wall, embedded / (busyNs / 1e9), wall};
  }

  static List<Chunk> chunk(ModelSpec spec, List<Document> docs) {
    List<Chunk> chunks = new ArrayList<>();
    try (ModelTokenizer tokenizer = ModelTokenizer.open(spec)) {
      TokenWindowChunker chunker = new TokenWindowChunker(tokenizer, 200, 32);
      docs.forEach(d -> chunks.addAll(chunker.chunk(d)));
    }
    return chunks;
  }

  static List<Document> readDocs(Path corpus, int n) throws Exception {
    ObjectMapper json = new ObjectMapper();
    List<Document> docs = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(corpus, StandardCharsets.UTF_8)) {
      for (String line; docs.size() < n && (line = r.readLine()) != null; ) {
        JsonNode o = json.readTree(line);
        docs.add(new Document(o.path("_id").asText(), o.path("title").asText(""), o.path("text").asText(""),
            Map.of(), corpus.toString()));
      }
    }
    return docs;
  }

  static Map<String, String> options(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
      }
      m.put(args[i].substring(2), args[++i]);
    }
    return m;
  }

  static String require(Map<String, String> opt, String key) {
    String v = opt.get(key);
    if (v == null) {
      throw new IllegalArgumentException("--" + key + " is required");
    }
    return v;
  }
}
