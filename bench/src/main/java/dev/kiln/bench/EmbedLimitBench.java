package dev.kiln.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.management.OperatingSystemMXBean;
import dev.kiln.bench.RawOrtEmbedder.Config;
import dev.kiln.chunk.EmbeddingInput;
import dev.kiln.chunk.RecursiveChunker;
import dev.kiln.config.EmbedConfig;
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
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The embedding stage against the best this machine does with ONNX Runtime alone (issue 47 item 2).
 * Passages: the corpus's first {@code --docs} documents, chunked as a build chunks them (recursive, the
 * model's recommended size); the chunks of even-numbered documents calibrate, those of odd-numbered
 * documents are reported on, so the configuration is not chosen on the passages it is measured on.
 *
 * <ol>
 *   <li><b>tokenizer</b>: the model tokenizer alone over the calibration half (tokens/s);
 *   <li><b>sweep</b>: raw ORT ({@link RawOrtEmbedder}) on one slot over the calibration half, one
 *       setting at a time (batch size with length-sorted, dynamically padded micro-batches; graph
 *       optimisation level; CPU arena; memory pattern), each time keeping the best so far; then intra-op
 *       threads 1 and 2 (spinning on and off) with the best;
 *   <li><b>compare</b>: on the report half, {@code --pairs} alternated rounds of raw best, Kiln's
 *       {@link TextEmbedder} and Kiln's embed operator in a Flink job, each with {@code --slots} slots of
 *       {@code --threads} threads (Kiln's default on this machine: two slots of one thread). Raw and
 *       embedder slots run in parallel threads over an even split of the passages; the operator's clock
 *       covers the whole job (wall) and its embed-stage timer (busy); the same job over two passages
 *       gives its fixed cost (cluster start, model loads).
 * </ol>
 *
 * Every step records the 1-minute load average at its start and end. Usage: {@code EmbedLimitBench
 * --corpus FILE --out FILE.json [--docs N] [--models a,b] [--pairs 3] [--slots 2] [--threads 1]
 * [--sweep-limit N] [--sweep false] [--spin-pairs N]}: the sweep times {@code --sweep-limit} calibration
 * passages per point ({@code false}: the baseline is taken as best); {@code --spin-pairs} adds N alternated
 * pairs of one two-thread slot with ONNX Runtime's intra-op spinning on and off.
 */
public final class EmbedLimitBench {
  private EmbedLimitBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = EmbedBench.options(args);
    Path corpus = Path.of(EmbedBench.require(opt, "corpus"));
    Path out = Path.of(EmbedBench.require(opt, "out"));
    int docs = Integer.parseInt(opt.getOrDefault("docs", "200"));
    int pairs = Integer.parseInt(opt.getOrDefault("pairs", "3"));
    int slots = Integer.parseInt(opt.getOrDefault("slots", "2"));
    int threads = Integer.parseInt(opt.getOrDefault("threads", "1"));
    int sweepLimit = Integer.parseInt(opt.getOrDefault("sweep-limit", "60"));
    boolean sweepOn = Boolean.parseBoolean(opt.getOrDefault("sweep", "true"));
    int spinPairs = Integer.parseInt(opt.getOrDefault("spin-pairs", "0"));
    List<String> models = List.of(opt.getOrDefault("models", "bge-small-en-v15-q,all-minilm-l6-v2-q").split(","));
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("corpus", corpus.toString());
    report.put("docs", docs);
    report.put("cores", Runtime.getRuntime().availableProcessors());
    report.put("jvm", Runtime.version().toString());
    report.put("commit", System.getenv().getOrDefault("BENCH_COMMIT", "unknown"));
    report.put("slots", slots);
    report.put("threads_per_slot", threads);
    List<Object> perModel = new ArrayList<>();
    report.put("models", perModel);
    List<Document> documents = EmbedBench.readDocs(corpus, docs);
    for (String name : models) {
      ModelSpec spec = ModelRegistry.resolve(name);
      // DJL creates the process's ONNX Runtime environment (with its threading options) and refuses one made
      // before it; both sides then share it, as they would in one TaskManager.
      TextEmbedder.open(spec, 1, 1, EmbedDevice.CPU).close();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("model", spec.name());
      perModel.add(m);
      Passages calib = passages(spec, documents, 0);
      Passages test = passages(spec, documents, 1);
      m.put("calibration", calib.describe());
      m.put("report", test.describe());
      Passages sweepSet = calib.first(sweepLimit);
      m.put("tokenizer", OrtSweep.tokenizer(spec, calib));
      List<Object> sweep = new ArrayList<>();
      m.put("sweep", sweep);
      Config best = sweepOn ? OrtSweep.sweep(spec, sweepSet, sweep) : OrtSweep.baseline();
      m.put("best", best.label());
      List<Object> rounds = new ArrayList<>();
      m.put("compare", rounds);
      // With several threads a slot parks them (the sweep's last two points: spinning costs CPU and, loaded, wall).
      Config slotBest = threads > 1 ? best.withThreads(threads).withSpinning(false) : best.withThreads(threads);
      for (int round = 0; round < pairs; round++) { // alternated: every side sees the same machine load
        rounds.add(step("raw", round, () -> rawSlots(spec, slotBest, test, slots)));
        rounds.add(step("kiln-embedder", round, () -> kilnSlots(spec, test, slots, threads)));
        rounds.add(step("kiln-operator", round, () -> operator(spec, test, slots, threads)));
        // The same job over two passages: its fixed cost (cluster start, model loads, Flink's first-run JIT).
        rounds.add(step("kiln-operator-fixed", round, () -> operator(spec, test.first(slots), slots, threads)));
      }
      List<Object> spin = new ArrayList<>();
      m.put("spinning_two_threads", spin);
      for (int round = 0; round < spinPairs; round++) { // one slot of two threads: spinning on, then off
        spin.add(step("raw-spin", round, () -> rawSlots(spec, best.withThreads(2).withSpinning(true), test, 1)));
        spin.add(step("raw-no-spin", round, () -> rawSlots(spec, best.withThreads(2).withSpinning(false), test, 1)));
      }
      write(out, report);
    }
    write(out, report);
  }

  private static void write(Path out, Map<String, Object> report) throws IOException {
    Files.createDirectories(out.toAbsolutePath().getParent());
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), report);
  }

  /** Chunks of the documents whose position has parity {@code half}, as the model sees them. */
  static Passages passages(ModelSpec spec, List<Document> docs, int half) {
    List<Chunk> chunks = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    int size = spec.chunkSize() != null ? spec.chunkSize() : 200;
    int overlap = spec.chunkOverlap() != null ? spec.chunkOverlap() : 32;
    try (ModelTokenizer tokenizer = ModelTokenizer.open(spec)) {
      RecursiveChunker chunker = new RecursiveChunker(tokenizer, size, overlap);
      for (int i = half; i < docs.size(); i += 2) {
        for (Chunk c : chunker.chunk(docs.get(i))) {
          chunks.add(c);
          texts.add(spec.passagePrefix() + EmbeddingInput.of(c, true));
        }
      }
    }
    long tokens = 0;
    try (RawOrtEmbedder raw = OrtSweep.open(spec, OrtSweep.baseline())) {
      for (String t : texts) {
        tokens += raw.tokens(t);
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return new Passages(chunks, texts, tokens);
  }

  record Passages(List<Chunk> chunks, List<String> texts, long tokens) {
    Passages first(int n) {
      if (n >= texts.size()) {
        return this;
      }
      return new Passages(chunks.subList(0, n), texts.subList(0, n), -1); // counted where it matters
    }

    Map<String, Object> describe() {
      return Map.of("passages", texts.size(), "model_tokens", tokens,
          "mean_tokens", texts.isEmpty() ? 0 : (double) tokens / texts.size());
    }
  }

  private static Map<String, Object> rawSlots(ModelSpec spec, Config c, Passages p, int slots) throws Exception {
    List<RawOrtEmbedder> open = new ArrayList<>();
    try {
      for (int s = 0; s < slots; s++) {
        RawOrtEmbedder raw = OrtSweep.open(spec, c);
        raw.embed(p.texts().subList(0, Math.min(8, p.texts().size())));
        open.add(raw);
      }
      long c0 = cpuNanos();
      double wall = inSlots(slots, p, (slot, texts) -> OrtSweep.embedWindows(open.get(slot), texts));
      double cpu = (cpuNanos() - c0) / 1e9;
      return Map.of("config", c.label(), "tokens_per_s", p.tokens() / wall, "wall_s", wall,
          "tokens_per_cpu_s", p.tokens() / cpu, "cpu_s", cpu, "slot_cpu_s", lastSlotCpu,
          "tokens_per_slot_cpu_s", p.tokens() / lastSlotCpu);
    } finally {
      for (RawOrtEmbedder raw : open) {
        raw.close();
      }
    }
  }

  private static Map<String, Object> kilnSlots(ModelSpec spec, Passages p, int slots, int threads) throws Exception {
    int batch = new EmbedConfig().effectiveBatchSize(false);
    List<TextEmbedder> open = new ArrayList<>();
    try {
      for (int s = 0; s < slots; s++) {
        TextEmbedder e = TextEmbedder.open(spec, batch, threads, EmbedDevice.CPU);
        e.embedPassages(p.texts().subList(0, Math.min(8, p.texts().size())));
        open.add(e);
      }
      long c0 = cpuNanos();
      double wall = inSlots(slots, p, (slot, texts) -> {
        for (int from = 0; from < texts.size(); from += EmbedFunction.WINDOW) {
          open.get(slot).embed(texts.subList(from, Math.min(texts.size(), from + EmbedFunction.WINDOW)));
        }
      });
      double cpu = (cpuNanos() - c0) / 1e9;
      return Map.of("batch", batch, "tokens_per_s", p.tokens() / wall, "wall_s", wall,
          "tokens_per_cpu_s", p.tokens() / cpu, "cpu_s", cpu, "slot_cpu_s", lastSlotCpu,
          "tokens_per_slot_cpu_s", p.tokens() / lastSlotCpu);
    } finally {
      open.forEach(TextEmbedder::close);
    }
  }

  interface SlotWork {
    void run(int slot, List<String> texts) throws Exception;
  }

  /** CPU seconds of the slot threads in the last {@link #inSlots} (with one intra-op thread, all the inference). */
  private static double lastSlotCpu;

  /** Runs each slot's share (every slots-th passage) in its own thread; the wall time of the slowest. */
  private static double inSlots(int slots, Passages p, SlotWork work) throws Exception {
    long[] slotCpu = new long[slots];
    List<List<String>> shares = new ArrayList<>();
    for (int s = 0; s < slots; s++) {
      shares.add(new ArrayList<>());
    }
    for (int i = 0; i < p.texts().size(); i++) {
      shares.get(i % slots).add(p.texts().get(i));
    }
    Exception[] failure = new Exception[1];
    List<Thread> running = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int s = 0; s < slots; s++) {
      int slot = s;
      running.add(Thread.ofPlatform().start(() -> {
        try {
          long c0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
          work.run(slot, shares.get(slot));
          slotCpu[slot] = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - c0;
        } catch (Exception e) {
          failure[0] = e;
        }
      }));
    }
    for (Thread t : running) {
      t.join();
    }
    double wall = (System.nanoTime() - t0) / 1e9;
    if (failure[0] != null) {
      throw failure[0];
    }
    lastSlotCpu = Arrays.stream(slotCpu).sum() / 1e9;
    return wall;
  }

  private static Map<String, Object> operator(ModelSpec spec, Passages p, int slots, int threads) throws Exception {
    EmbedConfig config = new EmbedConfig();
    config.device = "cpu";
    config.model = spec.source();
    config.threads = threads;
    StreamExecutionEnvironment env = BuildJob.localEnvironment(slots);
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(slots);
    EmbedOperator.embed(env.fromData(p.chunks()).rebalance(), new EmbedFunction(config, threads))
        .sinkTo(new DiscardingSink<>());
    long c0 = cpuNanos();
    long t0 = System.nanoTime();
    JobExecutionResult r = env.execute("embed limit bench");
    double wall = (System.nanoTime() - t0) / 1e9;
    double cpu = (cpuNanos() - c0) / 1e9; // the whole job: cluster start, model loads, Flink, embedding
    long embedded = ((Number) r.getAccumulatorResult(JobCounters.CHUNKS_EMBEDDED)).longValue();
    long busyNs = ((Number) r.getAccumulatorResult(JobCounters.TIME_EMBED)).longValue();
    if (embedded != p.chunks().size()) {
      throw new IllegalStateException("operator embedded " + embedded + " of " + p.chunks().size() + " chunks");
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("wall_s", wall);
    out.put("cpu_s", cpu);
    out.put("busy_s_all_slots", busyNs / 1e9);
    if (p.tokens() >= 0) { // the fixed-cost job over a few passages has no token count
      out.put("tokens_per_s", p.tokens() / wall);
      // The stage timer adds every subtask's time: busy tokens/s is per slot times the slots.
      out.put("busy_tokens_per_s", p.tokens() / (busyNs / 1e9) * slots);
      out.put("tokens_per_cpu_s", p.tokens() / cpu);
    }
    return out;
  }

  interface Step {
    Map<String, Object> run() throws Exception;
  }

  static Map<String, Object> step(String name, int round, Step s) throws Exception {
    double before = load();
    Map<String, Object> r = new LinkedHashMap<>(s.run());
    double after = load();
    r.put("step", name);
    r.put("round", round);
    r.put("load_start", before);
    r.put("load_end", after);
    r.put("loaded", Math.max(before, after) > 2.5);
    System.out.printf(Locale.ROOT, "%s round %d: %s%n", name, round, r);
    return r;
  }

  /** CPU time of this process, every thread (ONNX Runtime's native ones too). */
  static long cpuNanos() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  static double load() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }
}
