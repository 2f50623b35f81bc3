package dev.kiln.bench;

import ai.onnxruntime.OrtSession.SessionOptions.OptLevel;
import dev.kiln.bench.RawOrtEmbedder.Config;
import dev.kiln.embed.ModelFiles;
import dev.kiln.embed.ModelSpec;
import dev.kiln.operators.EmbedFunction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The raw ONNX Runtime side of {@link EmbedLimitBench}: its baseline configuration, the tokenizer's own
 * throughput, and the sweep that keeps the fastest setting axis by axis (batch size, optimisation level,
 * arena, memory pattern), measured in tokens per CPU-second because the machine is shared.
 */
final class OrtSweep {
  private OrtSweep() {}

  static Config baseline() {
    return new Config(1, 1, OptLevel.ALL_OPT, true, true, true);
  }

  static RawOrtEmbedder open(ModelSpec spec, Config c) throws Exception {
    return new RawOrtEmbedder(spec, ModelFiles.materialize(spec, spec.modelResource()),
        ModelFiles.materialize(spec, spec.tokenizerResource()), c);
  }

  static Map<String, Object> tokenizer(ModelSpec spec, EmbedLimitBench.Passages p) throws Exception {
    return EmbedLimitBench.step("tokenizer", 0, () -> {
      try (RawOrtEmbedder raw = open(spec, baseline())) {
        long best = Long.MAX_VALUE;
        for (int r = 0; r < 3; r++) {
          long t0 = System.nanoTime();
          for (String t : p.texts()) {
            raw.tokens(t);
          }
          best = Math.min(best, System.nanoTime() - t0);
        }
        return Map.of("tokens_per_s", p.tokens() / (best / 1e9), "us_per_passage", best / 1e3 / p.texts().size());
      }
    });
  }

  /** One setting at a time from the baseline, keeping whichever is fastest; then threads per slot. */
  static Config sweep(ModelSpec spec, EmbedLimitBench.Passages p, List<Object> log) throws Exception {
    long tokens = countTokens(spec, p);
    Config best = baseline();
    double bestRate = measure(spec, best, p, tokens, log);
    for (int axis = 0; axis < 4; axis++) {
      List<Config> candidates = new ArrayList<>();
      switch (axis) {
        case 0 -> {
          for (int b : new int[] {2, 4, 8, 16, 32}) {
            candidates.add(best.withBatch(b));
          }
        }
        case 1 -> {
          candidates.add(best.withOpt(OptLevel.BASIC_OPT));
          candidates.add(best.withOpt(OptLevel.EXTENDED_OPT));
        }
        case 2 -> candidates.add(best.withArena(!best.arena()));
        default -> candidates.add(best.withMemoryPattern(!best.memoryPattern()));
      }
      Config axisBest = best;
      for (Config c : candidates) {
        double rate = measure(spec, c, p, tokens, log);
        if (rate > bestRate) {
          bestRate = rate;
          axisBest = c;
        }
      }
      best = axisBest;
    }
    // Threads per slot are the machine's split, not a tuning knob: measured for the record.
    measure(spec, best.withThreads(2), p, tokens, log);
    measure(spec, best.withThreads(2).withSpinning(false), p, tokens, log);
    return best;
  }

  static long countTokens(ModelSpec spec, EmbedLimitBench.Passages p) throws Exception {
    long n = 0;
    try (RawOrtEmbedder raw = open(spec, baseline())) {
      for (String t : p.texts()) {
        n += raw.tokens(t);
      }
    }
    return n;
  }

  static double measure(ModelSpec spec, Config c, EmbedLimitBench.Passages p, long tokens, List<Object> log)
      throws Exception {
    Map<String, Object> r = EmbedLimitBench.step("sweep", 0, () -> {
      try (RawOrtEmbedder raw = open(spec, c)) {
        raw.embed(p.texts().subList(0, Math.min(8, p.texts().size()))); // warm-up: first-run allocations
        raw.tokenizeNanos = 0;
        raw.inferNanos = 0;
        long c0 = EmbedLimitBench.cpuNanos();
        long t0 = System.nanoTime();
        embedWindows(raw, p.texts());
        double s = (System.nanoTime() - t0) / 1e9;
        double cpu = (EmbedLimitBench.cpuNanos() - c0) / 1e9;
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("config", c.label());
        x.put("tokens_per_s", tokens / s);
        x.put("tokens_per_cpu_s", tokens / cpu);
        x.put("tokenize_s", raw.tokenizeNanos / 1e9);
        x.put("infer_s", raw.inferNanos / 1e9);
        return x;
      }
    });
    log.add(r);
    System.out.printf(Locale.ROOT, "sweep %s: %.0f tokens/s, %.0f tokens/cpu-s%n", c.label(),
        (Double) r.get("tokens_per_s"), (Double) r.get("tokens_per_cpu_s"));
    // The machine is shared: CPU time is what a configuration costs, wall time is what the neighbours left.
    return (Double) r.get("tokens_per_cpu_s");
  }

  /** In windows of the operator's size, as the embed stage hands texts to the embedder. */
  static void embedWindows(RawOrtEmbedder raw, List<String> texts) throws Exception {
    for (int from = 0; from < texts.size(); from += EmbedFunction.WINDOW) {
      raw.embed(texts.subList(from, Math.min(texts.size(), from + EmbedFunction.WINDOW)));
    }
  }
}
