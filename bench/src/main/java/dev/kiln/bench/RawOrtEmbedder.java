package dev.kiln.bench;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.kiln.embed.ModelSpec;
import dev.kiln.embed.Pooling;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The reference side of {@link EmbedLimitBench}: ONNX Runtime's own Java API with nothing of Kiln or DJL's
 * NDArray layer around it. The model's tokenizer (DJL's binding of the Hugging Face tokenizer, as Kiln
 * uses) turns each text into ids; texts are sorted by token count, cut into micro-batches of
 * {@code batch} and each batch is padded only to its own longest text; one session per slot.
 */
final class RawOrtEmbedder implements AutoCloseable {
  /** One point of the configuration space. */
  record Config(int batch, int intraThreads, OrtSession.SessionOptions.OptLevel opt, boolean arena,
      boolean memoryPattern, boolean spinning) {
    Config withBatch(int b) {
      return new Config(b, intraThreads, opt, arena, memoryPattern, spinning);
    }

    Config withThreads(int t) {
      return new Config(batch, t, opt, arena, memoryPattern, spinning);
    }

    Config withOpt(OrtSession.SessionOptions.OptLevel o) {
      return new Config(batch, intraThreads, o, arena, memoryPattern, spinning);
    }

    Config withArena(boolean a) {
      return new Config(batch, intraThreads, opt, a, memoryPattern, spinning);
    }

    Config withMemoryPattern(boolean m) {
      return new Config(batch, intraThreads, opt, arena, m, spinning);
    }

    Config withSpinning(boolean s) {
      return new Config(batch, intraThreads, opt, arena, memoryPattern, s);
    }

    String label() {
      return "batch=" + batch + " intra=" + intraThreads + " opt=" + opt + " arena=" + arena + " mempattern="
          + memoryPattern + " spin=" + spinning;
    }
  }

  private final ModelSpec spec;
  private final OrtEnvironment env;
  private final OrtSession session;
  private final HuggingFaceTokenizer tokenizer;
  private final Config config;
  private final List<String> inputs;
  private final String output;
  /** Nanoseconds spent in the tokenizer and in {@code session.run} (with tensor copies) since creation. */
  long tokenizeNanos;
  long inferNanos;

  RawOrtEmbedder(ModelSpec spec, Path modelFile, Path tokenizerFile, Config config) throws Exception {
    this.spec = spec;
    this.config = config;
    this.env = OrtEnvironment.getEnvironment();
    try (OrtSession.SessionOptions so = new OrtSession.SessionOptions()) {
      so.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
      so.setInterOpNumThreads(1);
      so.setIntraOpNumThreads(config.intraThreads());
      so.setOptimizationLevel(config.opt());
      so.setCPUArenaAllocator(config.arena());
      so.setMemoryPatternOptimization(config.memoryPattern());
      so.addConfigEntry("session.intra_op.allow_spinning", config.spinning() ? "1" : "0");
      this.session = env.createSession(modelFile.toString(), so);
    }
    this.inputs = List.copyOf(session.getInputNames());
    this.output = session.getOutputNames().iterator().next();
    this.tokenizer = HuggingFaceTokenizer.builder()
        .optTokenizerPath(tokenizerFile)
        .optAddSpecialTokens(true)
        .optTruncation(true)
        .optMaxLength(spec.maxTokens())
        .optPadding(false)
        .build();
  }

  /** Model tokens of one text (special tokens in, truncated as the model sees it). */
  int tokens(String text) {
    return tokenizer.encode(text).getIds().length;
  }

  /** Embeds texts (passage prefix already applied); the result is in input order. */
  float[][] embed(List<String> texts) throws OrtException {
    long t0 = System.nanoTime();
    int n = texts.size();
    Encoding[] enc = new Encoding[n];
    for (int i = 0; i < n; i++) {
      enc[i] = tokenizer.encode(texts.get(i));
    }
    long t1 = System.nanoTime();
    tokenizeNanos += t1 - t0;
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparingInt(i -> enc[i].getIds().length));
    float[][] out = new float[n][];
    for (int from = 0; from < n; from += config.batch()) {
      int to = Math.min(n, from + config.batch());
      int b = to - from;
      int len = enc[order[to - 1]].getIds().length; // sorted: the last is the longest
      long[] ids = new long[b * len];
      long[] mask = new long[b * len];
      long[] types = new long[b * len];
      for (int r = 0; r < b; r++) {
        long[] tid = enc[order[from + r]].getIds();
        long[] tty = enc[order[from + r]].getTypeIds();
        System.arraycopy(tid, 0, ids, r * len, tid.length);
        System.arraycopy(tty, 0, types, r * len, tty.length);
        Arrays.fill(mask, r * len, r * len + tid.length, 1L);
      }
      float[][] vectors = run(ids, mask, types, b, len);
      for (int r = 0; r < b; r++) {
        out[order[from + r]] = vectors[r];
      }
    }
    inferNanos += System.nanoTime() - t1;
    return out;
  }

  private float[][] run(long[] ids, long[] mask, long[] types, int b, int len) throws OrtException {
    long[] shape = {b, len};
    Map<String, OnnxTensor> feed = new HashMap<>();
    try {
      for (String name : inputs) {
        long[] data = switch (name) {
          case "input_ids" -> ids;
          case "attention_mask" -> mask;
          case "token_type_ids" -> types;
          default -> throw new IllegalStateException("unexpected model input " + name);
        };
        feed.put(name, OnnxTensor.createTensor(env, LongBuffer.wrap(data), shape));
      }
      try (OrtSession.Result result = session.run(feed, Set.of(output))) {
        OnnxTensor hidden = (OnnxTensor) result.get(0);
        FloatBuffer fb = hidden.getFloatBuffer();
        return pool(fb, mask, b, len);
      }
    } finally {
      feed.values().forEach(OnnxTensor::close);
    }
  }

  private float[][] pool(FloatBuffer hidden, long[] mask, int b, int len) {
    int d = spec.dimension();
    float[][] out = new float[b][d];
    for (int r = 0; r < b; r++) {
      float[] v = out[r];
      if (spec.pooling() == Pooling.CLS) {
        hidden.get(r * len * d, v, 0, d);
      } else {
        int count = 0;
        for (int t = 0; t < len; t++) {
          if (mask[r * len + t] == 0) {
            continue;
          }
          count++;
          int base = (r * len + t) * d;
          for (int k = 0; k < d; k++) {
            v[k] += hidden.get(base + k);
          }
        }
        for (int k = 0; k < d; k++) {
          v[k] /= Math.max(1, count);
        }
      }
      double sum = 0;
      for (float x : v) {
        sum += x * x;
      }
      float norm = (float) Math.sqrt(sum);
      for (int k = 0; k < d && norm > 0; k++) {
        v[k] /= norm;
      }
    }
    return out;
  }

  @Override
  public void close() throws OrtException {
    tokenizer.close();
    session.close();
  }
}
