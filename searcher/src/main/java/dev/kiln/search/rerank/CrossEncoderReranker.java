package dev.kiln.search.rerank;

import ai.djl.MalformedModelException;
import ai.djl.engine.Engine;
import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
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
import dev.kiln.config.ConfigException;
import dev.kiln.embed.DjlEnvironment;
import dev.kiln.search.Setting;
import dev.kiln.search.SettingException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cross-encoder run through DJL: each (query, passage) pair is tokenized as one sequence pair
 * ({@code [CLS] q [SEP] p [SEP]}), pairs are batched and padded to the batch's longest, and the
 * model's relevance logit is the score. Outputs of shape {@code [b]}, {@code [b, 1]} or {@code [b,
 * c]} are accepted; with several columns the last is taken as "relevant", as in two-class heads.
 *
 * <p>Calls are serialised: one predictor, and rerank batches are small.
 */
public final class CrossEncoderReranker implements Reranker {
  private static final Logger LOG = LoggerFactory.getLogger(CrossEncoderReranker.class);

  private final Path dir;
  private final CrossEncoderConfig config;
  private final HuggingFaceTokenizer tokenizer;
  private final ZooModel<NDList, NDList> model;
  private final Predictor<NDList, NDList> predictor;
  private final List<String> inputNames;

  private CrossEncoderReranker(Path dir, CrossEncoderConfig config, HuggingFaceTokenizer tokenizer,
      ZooModel<NDList, NDList> model) {
    this.dir = dir;
    this.config = config;
    this.tokenizer = tokenizer;
    this.model = model;
    this.predictor = model.newPredictor();
    PairList<String, Shape> described = model.describeInput();
    this.inputNames = described == null || described.isEmpty() ? config.inputs : described.keys();
  }

  /** Loads the model directory; a missing or unreadable part is a {@link ConfigException}. */
  public static CrossEncoderReranker open(Path dir) {
    DjlEnvironment.prepare();
    CrossEncoderConfig config = CrossEncoderConfig.read(dir);
    if (!Engine.getAllEngines().contains(config.engine())) {
      throw new SettingException(Setting.RERANKER, " " + dir + ": " + config.model + " needs the DJL "
          + config.engine() + " engine, which is not on the classpath (available: "
          + Engine.getAllEngines() + ")");
    }
    HuggingFaceTokenizer tokenizer;
    try {
      tokenizer = HuggingFaceTokenizer.builder()
          .optTokenizerPath(dir.resolve(config.tokenizer))
          .optAddSpecialTokens(true)
          .optTruncation(true)
          .optMaxLength(config.maxTokens)
          .optPadding(false)
          .build();
    } catch (IOException e) {
      throw new SettingException(Setting.RERANKER, " " + dir + ": cannot load " + config.tokenizer + ": " + e.getMessage());
    }
    try {
      Criteria<NDList, NDList> criteria = Criteria.builder()
          .setTypes(NDList.class, NDList.class)
          .optModelPath(dir.resolve(config.model))
          .optEngine(config.engine())
          .optTranslator(new NoopTranslator())
          .optOption("interOpNumThreads", "1")
          .optOption("intraOpNumThreads", "1")
          .build();
      ZooModel<NDList, NDList> model = criteria.loadModel();
      LOG.info("loaded cross-encoder {} ({} engine, max {} tokens, batch {})", dir, config.engine(),
          config.maxTokens, config.batchSize);
      return new CrossEncoderReranker(dir, config, tokenizer, model);
    } catch (IOException | ModelNotFoundException | MalformedModelException | RuntimeException e) {
      tokenizer.close();
      throw new SettingException(Setting.RERANKER, " " + dir + ": cannot load " + config.model + ": " + e.getMessage());
    }
  }

  @Override
  public String name() {
    return dir.getFileName().toString();
  }

  @Override
  public synchronized float[] score(String query, List<String> passages) {
    float[] scores = new float[passages.size()];
    for (int from = 0; from < passages.size(); from += config.batchSize) {
      int to = Math.min(passages.size(), from + config.batchSize);
      float[] batch = scoreBatch(query, passages.subList(from, to));
      System.arraycopy(batch, 0, scores, from, batch.length);
    }
    return scores;
  }

  private float[] scoreBatch(String query, List<String> passages) {
    int b = passages.size();
    Encoding[] enc = new Encoding[b];
    int len = 0;
    for (int i = 0; i < b; i++) {
      enc[i] = tokenizer.encode(query, passages.get(i));
      len = Math.max(len, enc[i].getIds().length);
    }
    long[] ids = new long[b * len];
    long[] mask = new long[b * len];
    long[] types = new long[b * len];
    for (int r = 0; r < b; r++) {
      long[] tid = enc[r].getIds();
      long[] tty = enc[r].getTypeIds();
      long[] tmask = enc[r].getAttentionMask();
      System.arraycopy(tid, 0, ids, r * len, tid.length);
      System.arraycopy(tty, 0, types, r * len, tty.length);
      System.arraycopy(tmask, 0, mask, r * len, tmask.length);
    }
    try (NDManager manager = model.getNDManager().newSubManager()) {
      Shape shape = new Shape(b, len);
      NDList input = new NDList();
      for (String name : inputNames) {
        long[] data = switch (name) {
          case "input_ids" -> ids;
          case "attention_mask" -> mask;
          case "token_type_ids" -> types;
          default -> throw new IllegalStateException("cross-encoder " + dir
              + " has an input Kiln cannot fill: '" + name + "'");
        };
        NDArray array = manager.create(data, shape);
        array.setName(name);
        input.add(array);
      }
      NDArray out = predictor.predict(input).get(0);
      float[] flat = out.toType(DataType.FLOAT32, false).toFloatArray();
      int columns = flat.length / b;
      float[] scores = new float[b];
      for (int r = 0; r < b; r++) {
        float logit = flat[r * columns + columns - 1];
        scores[r] = config.activation.equals("sigmoid") ? (float) (1 / (1 + Math.exp(-logit))) : logit;
      }
      return scores;
    } catch (TranslateException e) {
      throw new IllegalStateException("cross-encoder " + dir + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void close() {
    predictor.close();
    model.close();
    tokenizer.close();
  }
}
