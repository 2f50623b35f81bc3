package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.vectors.VectorFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the synthetic corpus is derived from: the real document vectors of a dataset (read from the
 * stored {@code embeddings/*.parquet} of a snapshot of it, built once with the default model), its
 * queries and their real query vectors (embedded once), and its text statistics. Cached under the
 * bench work folder, so only the first run pays for the model.
 */
final class BaseData {
  private static final ObjectMapper JSON = new ObjectMapper();

  final List<float[]> docVectors;
  final List<String> queryTexts;
  final List<float[]> queryVectors;
  final TextModel text;
  final String model;

  BaseData(List<float[]> docVectors, List<String> queryTexts, List<float[]> queryVectors, TextModel text,
      String model) {
    this.docVectors = docVectors;
    this.queryTexts = queryTexts;
    this.queryVectors = queryVectors;
    this.text = text;
    this.model = model;
  }

  /**
   * Builds {@code corpus} once into {@code snapshots} with the build configuration {@code config} (its
   * model, or {@code model} where given, embeds it), unless a published snapshot is already there: the base every benchmark run draws
   * its vectors and text from.
   */
  static void buildIfMissing(String heap, Path logs, Path config, String model, Path corpus, Path snapshots)
      throws Exception {
    if (!Files.exists(snapshots.resolve("CURRENT"))) {
      System.err.printf("base: building %s once with %s (cached in %s)%n", corpus, model, snapshots);
      ChildRun.run(heap, logs.resolve("base-build.log"), KilnBuildStep.class, config.toString(), corpus.toString(),
          snapshots.toString(), "embed.model=" + model);
    }
  }

  /**
   * The default dataset's base under {@code work} ({@code base-<dataset>/}), built once if missing: what
   * the remote benchmarks draw their synthetic corpus from.
   */
  static BaseData forDefaults(Path datasets, Path work, String heap, Path logs, ScaleOptions defaults)
      throws Exception {
    Path baseDir = work.resolve("base-" + defaults.dataset);
    Path dataset = datasets.resolve(defaults.dataset);
    buildIfMissing(heap, logs, Path.of("configs/build.yaml").toAbsolutePath(), defaults.model, dataset.resolve("corpus.jsonl"),
        baseDir.resolve("snapshots"));
    return load(dataset.resolve("corpus.jsonl"), dataset.resolve("queries.jsonl"), baseDir.resolve("snapshots"),
        baseDir.resolve("query-vectors.json"), defaults.model);
  }

  /**
   * @param snapshots the snapshots root holding a build of {@code corpus} with {@code model}
   * @param queryCache where the embedded queries are kept (created on the first run)
   */
  static BaseData load(Path corpus, Path queries, Path snapshots, Path queryCache, String model) throws IOException {
    SnapshotStore store = new SnapshotStore(snapshots);
    String id = store.currentId();
    Manifest m = store.open(id);
    List<float[]> docs = new ArrayList<>();
    for (Path part : VectorFiles.parts(store.layout().snapshotDir(id).resolve(VectorFiles.DIRECTORY))) {
      VectorFiles.read(part, m.embeddings().modelFingerprint(), m.model().dimension(), (k, v) -> docs.add(v));
    }
    if (!Files.exists(queryCache)) {
      embedQueries(queries, queryCache, model);
    }
    JsonNode q = JSON.readTree(queryCache.toFile());
    List<String> texts = new ArrayList<>();
    List<float[]> vectors = new ArrayList<>();
    for (JsonNode e : q.get("queries")) {
      texts.add(e.get("text").asText());
      JsonNode v = e.get("vector");
      float[] f = new float[v.size()];
      for (int i = 0; i < f.length; i++) {
        f[i] = (float) v.get(i).asDouble();
      }
      vectors.add(f);
    }
    return new BaseData(docs, texts, vectors, TextModel.of(corpus), model);
  }

  private static void embedQueries(Path queries, Path cache, String model) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("model", model);
    ArrayNode list = root.putArray("queries");
    try (TextEmbedder e = TextEmbedder.open(ModelRegistry.resolve(model), 1, 1);
        BufferedReader r = Files.newBufferedReader(queries)) {
      for (String line; (line = r.readLine()) != null; ) {
        if (line.isBlank()) {
          continue;
        }
        String text = JSON.readTree(line).get("text").asText();
        ObjectNode o = list.addObject();
        o.put("text", text);
        ArrayNode v = o.putArray("vector");
        for (float f : e.embedQuery(text)) {
          v.add(f);
        }
      }
    }
    Files.createDirectories(cache.getParent());
    JSON.writeValue(cache.toFile(), root);
  }

  /** Distinct base vectors (a document's chunks that repeat exactly are stored once anyway). */
  Map<String, Integer> describe() {
    Map<String, Integer> d = new HashMap<>();
    d.put("base_doc_vectors", docVectors.size());
    d.put("base_queries", queryVectors.size());
    d.put("vocabulary", text.vocabularySize());
    return d;
  }
}
