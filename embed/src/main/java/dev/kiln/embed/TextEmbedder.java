package dev.kiln.embed;

import ai.djl.MalformedModelException;
import ai.djl.Model;
import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.inference.Predictor;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.repository.zoo.Criteria;
import ai.djl.repository.zoo.ModelNotFoundException;
import ai.djl.repository.zoo.ZooModel;
import ai.djl.translate.NoopTranslator;
import ai.djl.translate.TranslateException;
import ai.djl.util.PairList;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns texts into vectors with DJL (ONNX Runtime or PyTorch). One instance per slot: the predictor is created
 * once and reused for every batch. Texts are grouped by token length before padding, so a batch of
 * short chunks is not padded to the length of one long chunk. Not thread-safe.
 */
public final class TextEmbedder implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TextEmbedder.class);

  private final ModelSpec spec;
  private final ModelTokenizer tokenizer;
  private final Model model;
  private final Predictor<NDList, NDList> predictor;
  private final List<String> inputNames;
  private final int batchSize;
  private final AtomicLong truncated = new AtomicLong();

  private TextEmbedder(ModelSpec spec, ModelTokenizer tokenizer, Model model, int batchSize) {
    this.spec = spec;
    this.tokenizer = tokenizer;
    this.model = model;
    this.predictor = model.newPredictor(new NoopTranslator());
    this.batchSize = batchSize;
    this.inputNames = inputNames(spec, model);
  }

  /**
   * Loads a model for one slot, on the CPU.
   *
   * @param threads engine intra-op threads (size it to the cores this slot may use)
   */
  public static TextEmbedder open(ModelSpec spec, int batchSize, int threads) {
    return open(spec, batchSize, threads, EmbedDevice.CPU);
  }

  /**
   * Loads a model for one slot on {@code device}.
   *
   * @param threads engine intra-op threads (size it to the cores this slot may use). ONNX Runtime
   *     takes them per session; PyTorch has one process-wide pool, sized by the first slot to load
   */
  public static TextEmbedder open(ModelSpec spec, int batchSize, int threads, EmbedDevice device) {
    return open(spec, batchSize, threads, device, Map.of());
  }

  /**
   * As {@link #open(ModelSpec, int, int, EmbedDevice)}, with DJL engine options added (ONNX Runtime's
   * session options by DJL's names: {@code optLevel}, {@code executionMode}, {@code
   * memoryPatternOptimization}, {@code cpuArenaAllocator}, …; they win over the thread settings): what
   * a benchmark compares query-embedding settings with (bench QueryLatencyStep).
   */
  public static TextEmbedder open(ModelSpec spec, int batchSize, int threads, EmbedDevice device,
      Map<String, String> engineOptions) {
    DjlEnvironment.prepare();
    return DjlEnvironment.inDjlContext(() -> load(spec, batchSize, threads, device, engineOptions));
  }

  private static TextEmbedder load(ModelSpec spec, int batchSize, int threads, EmbedDevice device,
      Map<String, String> engineOptions) {
    if (!DjlEnvironment.engines().contains(spec.engine().djlName())) {
      // Where DJL is shared from Flink's lib/, only the engines there count (DjlEnvironment).
      throw new IllegalStateException("model " + spec.name() + " runs on DJL's " + spec.engine().djlName()
          + " engine, which DJL did not find beside it (it found " + DjlEnvironment.engines() + "). With DJL in"
          + " Flink's lib/ (docs/DEPLOYMENT.md, \"Several builds on one TaskManager\") put the engine's jars there"
          + " too: for PyTorch ai.djl.pytorch:pytorch-engine and pytorch-jni, and libtorch where DJL finds it offline");
    }
    int t = Math.max(1, threads);
    if ("fp16".equals(spec.precision()) && !device.isGpu()) {
      throw new IllegalStateException("model " + spec.name() + " is a half-precision (fp16) file, which needs a"
          + " GPU, but this slot runs on the CPU (" + device.reason() + ")");
    }
    ModelTokenizer tokenizer = ModelTokenizer.open(spec);
    try {
      Path file = ModelFiles.materialize(spec, spec.modelResource());
      Model model = spec.engine() == ModelEngine.PYTORCH ? loadTorch(spec, file, t, device, engineOptions)
          : loadOnnx(file, t, device, engineOptions);
      String threadNote = spec.engine() == ModelEngine.PYTORCH
          ? System.getProperty("ai.djl.pytorch.num_threads") + " PyTorch intra-op thread(s), process-wide"
          : t + " ONNX Runtime intra-op thread(s)" + (device.isGpu() || t == 1 ? "" : ", not spinning");
      LOG.info("loaded embedding model {} ({}, {}, {}-d, {} pooling, max {} tokens) on {} with {}, batch {}",
          spec.name(), spec.engine(), spec.precision(), spec.dimension(), spec.pooling(), spec.maxTokens(),
          device, threadNote, batchSize);
      return new TextEmbedder(spec, tokenizer, model, batchSize);
    } catch (IOException | ModelNotFoundException | MalformedModelException | OrtException e) {
      tokenizer.close();
      throw new IllegalStateException("cannot load embedding model " + spec.name() + ": " + e.getMessage(), e);
    }
  }

  private static Model loadTorch(ModelSpec spec, Path file, int threads, EmbedDevice device,
      Map<String, String> engineOptions)
      throws IOException, ModelNotFoundException, MalformedModelException {
    // DJL reads these once, when the PyTorch engine starts.
    setIfAbsent("ai.djl.pytorch.num_threads", Integer.toString(threads));
    setIfAbsent("ai.djl.pytorch.num_interop_threads", "1");
    String fileName = file.getFileName().toString();
    ZooModel<NDList, NDList> model = Criteria.builder()
        .setTypes(NDList.class, NDList.class)
        .optEngine(spec.engine().djlName())
        .optDevice(device.djlDevice())
        .optTranslator(new NoopTranslator())
        .optModelPath(file.getParent())
        .optModelName(fileName.substring(0, fileName.lastIndexOf('.')))
        .optOption("mapLocation", "true")
        .optOptions(engineOptions)
        .build()
        .loadModel();
    return model;
  }

  /**
   * ONNX Runtime, loaded through DJL's model API rather than its Criteria: only that way takes a session
   * options object, which carries the settings DJL has no string option for ({@link #sessionConfig}).
   */
  private static Model loadOnnx(Path file, int threads, EmbedDevice device, Map<String, String> engineOptions)
      throws IOException, MalformedModelException, OrtException {
    Model model = Model.newInstance(file.getFileName().toString(), device.djlDevice(), ModelEngine.ONNX.djlName());
    Map<String, String> config = sessionConfig(threads, device);
    Map<String, Object> load = new HashMap<>();
    load.put("interOpNumThreads", "1");
    load.put("intraOpNumThreads", Integer.toString(threads));
    // Settings a caller names (a benchmark's ONNX Runtime variants) override the defaults above.
    load.putAll(engineOptions);
    // ONNX Runtime copies the options into the session, so they are released once it exists. Without
    // settings of its own (GPU, one thread) the session gets DJL's options, as before.
    try (OrtSession.SessionOptions options = config.isEmpty() ? null : new OrtSession.SessionOptions()) {
      if (options != null) {
        for (Map.Entry<String, String> e : config.entrySet()) {
          options.addConfigEntry(e.getKey(), e.getValue());
        }
        load.put("sessionOptions", options);
      }
      model.load(file, null, load);
      return model;
    } catch (IOException | MalformedModelException | OrtException | RuntimeException e) {
      model.close();
      throw e;
    }
  }

  /**
   * Session settings beyond DJL's defaults. A CPU slot with more than one intra-op thread does not let
   * its idle threads spin: ONNX Runtime's default busy-waits them between operators, which on a machine
   * shared with other slots, stages or builds burns cores the others need. Measured with raw ONNX
   * Runtime, one slot of two threads, batch 1, bge-small, three alternated pairs (docs/results/embedding.md):
   * spinning cost 1.9x the CPU per token and, on the loaded machine, 2.5x the wall time. GPU sessions keep
   * the defaults.
   */
  static Map<String, String> sessionConfig(int threads, EmbedDevice device) {
    if (device.isGpu() || threads <= 1) {
      return Map.of();
    }
    return Map.of("session.intra_op.allow_spinning", "0");
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }

  /** The model's inputs in call order: declared by the spec, else by the model, else the BERT three. */
  private static List<String> inputNames(ModelSpec spec, Model model) {
    if (spec.inputs() != null) {
      return spec.inputs();
    }
    PairList<String, Shape> inputs = spec.engine() == ModelEngine.ONNX ? model.describeInput() : null;
    if (inputs == null || inputs.isEmpty()) {
      return spec.engine() == ModelEngine.PYTORCH
          ? List.of("input_ids", "attention_mask", "token_type_ids")
          : List.of("input_ids", "attention_mask");
    }
    return inputs.keys();
  }

  public ModelSpec spec() {
    return spec;
  }

  public ModelTokenizer tokenizer() {
    return tokenizer;
  }

  /** Texts cut at the model's maximum length so far. */
  public long truncatedCount() {
    return truncated.get();
  }

  public float[] embedQuery(String query) {
    return embed(List.of(spec.queryPrefix() + query))[0];
  }

  public float[][] embedPassages(List<String> passages) {
    if (spec.passagePrefix().isEmpty()) {
      return embed(passages);
    }
    List<String> prefixed = new ArrayList<>(passages.size());
    for (String p : passages) {
      prefixed.add(spec.passagePrefix() + p);
    }
    return embed(prefixed);
  }

  /** Embeds texts as given (no prefix); the result is in input order. */
  public float[][] embed(List<String> texts) {
    int n = texts.size();
    Encoding[] encodings = new Encoding[n];
    for (int i = 0; i < n; i++) {
      encodings[i] = tokenizer.encodeForModel(texts.get(i));
      if (encodings[i].exceedMaxLength()) {
        truncated.incrementAndGet();
      }
    }
    // Length buckets: sort by token count so each batch pads only to its own longest text.
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparingInt(i -> encodings[i].getIds().length));
    float[][] out = new float[n][];
    for (int from = 0; from < n; from += batchSize) {
      int to = Math.min(n, from + batchSize);
      int[] idx = new int[to - from];
      for (int i = from; i < to; i++) {
        idx[i - from] = order[i];
      }
      float[][] vectors = runBatch(encodings, idx);
      for (int j = 0; j < idx.length; j++) {
        out[idx[j]] = vectors[j];
      }
    }
    return out;
  }

  private float[][] runBatch(Encoding[] encodings, int[] idx) {
    int b = idx.length;
    int len = 0;
    for (int i : idx) {
      len = Math.max(len, encodings[i].getIds().length);
    }
    long[] ids = new long[b * len];
    long[] mask = new long[b * len];
    long[] types = new long[b * len];
    for (int r = 0; r < b; r++) {
      Encoding e = encodings[idx[r]];
      long[] tid = e.getIds();
      long[] tty = e.getTypeIds();
      for (int t = 0; t < tid.length; t++) {
        ids[r * len + t] = tid[t];
        mask[r * len + t] = 1;
        types[r * len + t] = tty[t];
      }
    }
    try (NDManager manager = model.getNDManager().newSubManager()) {
      Shape shape = new Shape(b, len);
      NDList input = new NDList();
      for (String name : inputNames) {
        long[] data = switch (name) {
          case "input_ids" -> ids;
          case "attention_mask" -> mask;
          case "token_type_ids" -> types;
          default -> throw new IllegalStateException(
              "model " + spec.name() + " has an unexpected input '" + name + "'");
        };
        NDArray array = manager.create(data, shape);
        array.setName(name);
        input.add(array);
      }
      NDList output = predictor.predict(input);
      NDArray hidden = output.get(0);
      if (hidden.getDataType() != DataType.FLOAT32) {
        hidden = hidden.toType(DataType.FLOAT32, false); // half-precision models
      }
      return pool(hidden.toFloatArray(), hidden.getShape(), mask, b, len);
    } catch (TranslateException e) {
      throw new IllegalStateException("inference failed in model " + spec.name() + ": " + e.getMessage(), e);
    }
  }

  private float[][] pool(float[] hidden, Shape shape, long[] mask, int b, int len) {
    int d = spec.dimension();
    float[][] out = new float[b][d];
    if (shape.dimension() == 2) { // the model already pools
      for (int r = 0; r < b; r++) {
        System.arraycopy(hidden, r * d, out[r], 0, d);
      }
    } else {
      int seq = (int) shape.get(1);
      for (int r = 0; r < b; r++) {
        float[] v = out[r];
        if (spec.pooling() == Pooling.CLS) {
          System.arraycopy(hidden, r * seq * d, v, 0, d);
        } else {
          int count = 0;
          for (int t = 0; t < len; t++) {
            if (mask[r * len + t] == 0) {
              continue;
            }
            count++;
            int base = (r * seq + t) * d;
            for (int k = 0; k < d; k++) {
              v[k] += hidden[base + k];
            }
          }
          for (int k = 0; k < d; k++) {
            v[k] /= Math.max(1, count);
          }
        }
      }
    }
    if (spec.normalize()) {
      for (float[] v : out) {
        normalize(v);
      }
    }
    return out;
  }

  static void normalize(float[] v) {
    double sum = 0;
    for (float x : v) {
      sum += x * x;
    }
    float norm = (float) Math.sqrt(sum);
    if (norm > 0) {
      for (int k = 0; k < v.length; k++) {
        v[k] /= norm;
      }
    }
  }

  @Override
  public void close() {
    predictor.close();
    model.close();
    tokenizer.close();
  }
}
