package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.snapshot.LocalFiles;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The scale benchmark ({@code scripts/bench-scale.sh --chunks N [--json]}): writes a seeded synthetic
 * corpus of N one-chunk records with precomputed vectors derived from a real dataset
 * ({@link BaseData}, {@link SyntheticCorpus}), builds it with Kiln's default settings and with raw
 * Lucene on the same data, opens and queries the snapshot, then rebuilds after 1 % of the records
 * changed. Each measured step runs in its own JVM ({@link ChildRun}) so its memory is its own.
 * Prints a summary on stderr and, with {@code --json}, the full result on stdout; the result is also
 * kept as {@code <work>/n<N>/result.json}.
 */
public final class ScaleBench {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ScaleBench() {}

  public static void main(String[] args) throws Exception {
    ScaleOptions o;
    try {
      o = ScaleOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("bench-scale: " + e.getMessage());
      System.err.println(ScaleOptions.USAGE);
      System.exit(2);
      return;
    }
    Map<String, Object> result = run(o);
    Path file = o.runDir().resolve(o.pairs > 0 ? "build-pairs.json" : "result.json");
    JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), result);
    if (o.pairs > 0) {
      BuildPairs.print(result, System.err);
      System.err.println("result: " + file + ", kept as " + BuildPairs.keep(file, o.chunks));
    } else {
      ScaleSummary.print(result, System.err);
      System.err.println("result: " + file);
    }
    if (o.json) {
      System.out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(result));
    }
  }

  static Map<String, Object> run(ScaleOptions o) throws Exception {
    Path baseDir = o.baseDir();
    Path baseSnapshots = baseDir.resolve("snapshots");
    Path dataset = o.datasets.resolve(o.dataset);
    Path run = o.runDir();
    Files.createDirectories(run);
    Path logs = Files.createDirectories(run.resolve("logs"));
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("chunks", o.chunks);
    result.put("seed", o.seed);
    result.put("noise_sigma", o.noise);
    result.put("dataset", o.dataset);
    result.put("model", o.model);
    result.put("base_docs", o.baseDocs > 0 ? Integer.toString(o.baseDocs) : "all");
    result.put("heap", o.heap);
    result.put("cpus", Runtime.getRuntime().availableProcessors());
    result.put("load_average_start", loadAverage());

    Path baseCorpus = dataset.resolve("corpus.jsonl");
    if (o.baseDocs > 0) {
      baseCorpus = baseDir.resolve("corpus-first" + o.baseDocs + ".jsonl");
      if (!Files.exists(baseCorpus)) {
        Files.createDirectories(baseDir);
        try (var lines = Files.lines(dataset.resolve("corpus.jsonl"))) {
          Files.write(baseCorpus, lines.filter(l -> !l.isBlank()).limit(o.baseDocs).toList());
        }
      }
    }
    BaseData.buildIfMissing(o.heap, logs, o.config, o.model, baseCorpus, baseSnapshots);
    BaseData base = BaseData.load(dataset.resolve("corpus.jsonl"), dataset.resolve("queries.jsonl"), baseSnapshots,
        baseDir.resolve("query-vectors.json"), o.model);
    result.put("base", base.describe());
    SyntheticCorpus synth = new SyntheticCorpus(base, o.seed, o.noise);

    Path corpus = run.resolve("corpus");
    Path vectors = run.resolve("vectors.f32");
    Path snapshots = run.resolve("snapshots");
    // Kept after every build, so that a run that fails later can go on from it (--resume).
    Path builtJson = run.resolve("kiln-build.json");
    JsonNode kiln;
    if (o.resume && Files.isRegularFile(builtJson) && Files.isDirectory(corpus) && Files.isRegularFile(vectors)) {
      kiln = JSON.readTree(builtJson.toFile());
      result.put("resumed_from", builtJson.toString());
      result.put("corpus_bytes", KilnBuildStep.bytes(corpus));
      // The earlier run's rebuilds left CURRENT at the last of them (1 % changed, two segments a shard),
      // which the search step's exact top 10 (of the full build's vectors) would not match.
      String full = kiln.get("snapshot").asText();
      SnapshotStore store = new SnapshotStore(snapshots);
      if (!full.equals(store.current().orElse(null))) {
        new SnapshotPublisher(store).rollback(full);
        log("resumed: CURRENT rolled back to the full build %s", full);
      }
      log("resumed: corpus and kiln build %s of an earlier run", full);
    } else {
      long t0 = System.nanoTime();
      LocalFiles.deleteTree(corpus);
      synth.write(o.chunks, corpus, 0, o.pairs > 0 ? null : vectors); // pairs: no queries, no exact top 10
      result.put("corpus_write_s", seconds(t0));
      result.put("corpus_bytes", KilnBuildStep.bytes(corpus));
      log("corpus: %d records in %.1f s", o.chunks, seconds(t0));
      if (o.pairs > 0) { // the full builds alternated, nothing else (BuildPairs)
        result.put("pairs_requested", o.pairs);
        result.putAll(BuildPairs.run(o, corpus, logs));
        if (!o.keep) {
          LocalFiles.deleteTree(corpus);
          Files.deleteIfExists(vectors);
        }
        result.put("load_average_end", loadAverage());
        return result;
      }

      LocalFiles.deleteTree(snapshots);
      Files.deleteIfExists(builtJson);
      log("kiln build ...");
      kiln = ChildRun.run(o.heap, logs.resolve("kiln-build.log"), KilnBuildStep.class, o.buildArgs(corpus, snapshots).toArray(String[]::new));
      JSON.writerWithDefaultPrettyPrinter().writeValue(builtJson.toFile(), kiln);
    }
    result.put("kiln_build", kiln);
    log("kiln build: %.1f s", kiln.get("wall_s").asDouble());

    if (!o.skipRaw) {
      Path raw = run.resolve("raw-lucene");
      LocalFiles.deleteTree(raw);
      log("raw lucene build ...");
      JsonNode r = ChildRun.run(o.heap, logs.resolve("raw-build.log"), RawLuceneStep.class, corpus.toString(),
          raw.toString(), kiln.get("shards").asText(), kiln.get("parallelism").asText(), kiln.get("hnsw_m").asText(),
          kiln.get("hnsw_beam_width").asText(), kiln.get("ram_buffer_mb").asText(), kiln.get("max_segments").asText());
      result.put("raw_lucene_build", r);
      // Kiln's speed relative to the raw writer: >= 0.9 is the target.
      result.put("kiln_speed_vs_raw", r.get("wall_s").asDouble() / kiln.get("wall_s").asDouble());
      log("raw lucene: %.1f s", r.get("wall_s").asDouble());
      LocalFiles.deleteTree(raw);
    }

    Path queries = run.resolve("queries.json");
    writeQueries(synth, QuerySplit.REPORT, o, vectors, base.docVectors.get(0).length, queries);
    // Disjoint from the report queries (issue 47.6): what EfSweep chooses a depth on, so that the
    // recall reported on queries.json is held out from the choice.
    Path calibration = run.resolve("calibration-queries.json");
    writeQueries(synth, QuerySplit.CALIBRATION, o, vectors, base.docVectors.get(0).length, calibration);
    result.put("query_sets", Map.of(
        "report", queries.toString() + " (" + QuerySplit.REPORT.members(base.queryVectors.size()).size()
            + " base queries, seed + " + QuerySplit.REPORT.seedOffset + ")",
        "calibration", calibration.toString() + " (" + QuerySplit.CALIBRATION.members(base.queryVectors.size()).size()
            + " other base queries, seed + " + QuerySplit.CALIBRATION.seedOffset + "): EfSweep's"));
    if (!o.skipSearch) {
      log("search ...");
      JsonNode search = ChildRun.run(o.heap, logs.resolve("search.log"), SearchStep.class, snapshots.toString(),
          queries.toString(), o.threads, Integer.toString(o.qpsQueries));
      result.put("search", search);
    }

    if (!o.skipRebuild) {
      // Rewritten in place, as a nightly export overwrites its files: every file changes, 1 % of the records do.
      Path changed = corpus;
      LocalFiles.deleteTree(changed);
      long n = synth.write(o.chunks, changed, 0.01, null);
      result.put("rebuild_changed_records", n);
      log("rebuild after %d records changed ...", n);
      JsonNode re = ChildRun.run(o.heap, logs.resolve("rebuild.log"), KilnBuildStep.class, o.buildArgs(changed, snapshots).toArray(String[]::new));
      result.put("rebuild", re);
      result.put("rebuild_vs_full", re.get("wall_s").asDouble() / kiln.get("wall_s").asDouble());
      List<Double> walls = new ArrayList<>(List.of(re.get("wall_s").asDouble()));
      SnapshotPublisher publisher = new SnapshotPublisher(new SnapshotStore(snapshots));
      for (int i = 2; i <= o.rebuilds; i++) {
        publisher.rollback(kiln.get("snapshot").asText());
        JsonNode again = ChildRun.run(o.heap, logs.resolve("rebuild-" + i + ".log"), KilnBuildStep.class,
            o.buildArgs(changed, snapshots).toArray(String[]::new));
        walls.add(again.get("wall_s").asDouble());
      }
      putRepeats(result, "rebuild", walls, kiln);
      if (!o.skipAot && Runtime.version().feature() >= 25) {
        rebuildWithAotCache(o, logs, changed, snapshots, kiln, result);
      }
      rebuildOneFile(o, logs, synth, changed, snapshots, kiln, result);
    }
    if (!o.keep) {
      LocalFiles.deleteTree(corpus);
      Files.deleteIfExists(vectors);
    }
    result.put("load_average_end", loadAverage());
    return result;
  }

  /**
   * The same 1 % rebuild again with a JVM AOT cache, as {@code scripts/kiln build} keeps one
   * ({@code scripts/lib/aot.sh}): rolled back to the full build, an untimed rebuild trains the cache
   * (as the night before would have), rolled back again, and the timed rebuild maps it ({@code
   * AOTMode=on}: a cache it cannot map fails the step instead of timing a run without it). The full
   * build runs without a cache, which would save it a few of its hundreds of seconds.
   */
  private static void rebuildWithAotCache(ScaleOptions o, Path logs, Path corpus, Path snapshots, JsonNode full,
      Map<String, Object> result) throws IOException, InterruptedException {
    Path cache = o.runDir().resolve("build.aot");
    Files.deleteIfExists(cache);
    SnapshotPublisher publisher = new SnapshotPublisher(new SnapshotStore(snapshots));
    String fullId = full.get("snapshot").asText();
    try {
      publisher.rollback(fullId);
      log("rebuild with a JVM AOT cache: training run ...");
      long t0 = System.nanoTime();
      JsonNode training = ChildRun.run(o.heap, List.of("-XX:AOTCacheOutput=" + cache, "-XX:+DisplayVMOutputToStderr"),
          logs.resolve("rebuild-aot-training.log"), KilnBuildStep.class, o.buildArgs(corpus, snapshots).toArray(String[]::new));
      result.put("rebuild_aot_training_wall_s", training.get("wall_s").asDouble());
      result.put("rebuild_aot_training_process_s", seconds(t0));
      result.put("aot_cache_bytes", Files.size(cache));
      List<Double> walls = new ArrayList<>();
      for (int i = 1; i <= o.rebuilds; i++) {
        publisher.rollback(fullId);
        JsonNode re = ChildRun.run(o.heap, List.of("-XX:AOTCache=" + cache, "-XX:AOTMode=on"),
            logs.resolve(i == 1 ? "rebuild-aot.log" : "rebuild-aot-" + i + ".log"), KilnBuildStep.class,
            o.buildArgs(corpus, snapshots).toArray(String[]::new));
        if (i == 1) {
          result.put("rebuild_aot", re);
          result.put("rebuild_aot_vs_full", re.get("wall_s").asDouble() / full.get("wall_s").asDouble());
        }
        walls.add(re.get("wall_s").asDouble());
        log("rebuild with a JVM AOT cache: %.1f s", re.get("wall_s").asDouble());
      }
      putRepeats(result, "rebuild_aot", walls, full);
    } catch (IOException | RuntimeException e) {
      // The plain rebuild above is the series kept since the first run; this one must not lose it.
      result.put("rebuild_aot_error", String.valueOf(e.getMessage()));
      log("rebuild with a JVM AOT cache failed: %s", e.getMessage());
    } finally {
      Files.deleteIfExists(cache);
    }
  }

  /**
   * A rebuild after a nightly export rewrote one file and left the others as they were: 1 % of the
   * records changed again, all in {@code part-0000}, over the last rebuild (CURRENT, whose corpus
   * listing has every other file's size and modification time), so the build reads one file of the
   * corpus and keeps the rest's documents from its base unread.
   */
  private static void rebuildOneFile(ScaleOptions o, Path logs, SyntheticCorpus synth, Path corpus,
      Path snapshots, JsonNode full, Map<String, Object> result) throws IOException, InterruptedException {
    long n = synth.rewriteFirstPart(o.chunks, corpus, 0.01, 0.01);
    result.put("rebuild_one_file_changed_records", n);
    log("rebuild after %d records changed in one file of the corpus ...", n);
    JsonNode re = ChildRun.run(o.heap, logs.resolve("rebuild-one-file.log"), KilnBuildStep.class,
        o.buildArgs(corpus, snapshots).toArray(String[]::new));
    result.put("rebuild_one_file", re);
    result.put("rebuild_one_file_vs_full", re.get("wall_s").asDouble() / full.get("wall_s").asDouble());
    log("rebuild, one file changed: %.1f s", re.get("wall_s").asDouble());
  }

  /**
   * Every run's wall ({@code <name>_walls_s}) and their median against the full build ({@code
   * <name>_median_vs_full}), the figure the 5 % target is read from.
   */
  private static void putRepeats(Map<String, Object> result, String name, List<Double> walls, JsonNode full) {
    List<Double> sorted = walls.stream().sorted().toList();
    int n = sorted.size();
    double median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    result.put(name + "_walls_s", walls);
    result.put(name + "_median_s", median);
    result.put(name + "_median_vs_full", median / full.get("wall_s").asDouble());
  }

  private static void writeQueries(SyntheticCorpus synth, QuerySplit set, ScaleOptions o, Path vectors, int dim,
      Path out) throws IOException {
    List<float[]> qv = synth.queryVectors(set, o.queries);
    long t0 = System.nanoTime();
    List<int[]> truth = ExactTopK.search(vectors, dim, qv.subList(0, Math.min(o.recallQueries, qv.size())), 10);
    log("exact top 10 of %d %s queries in %.1f s", truth.size(), set.name().toLowerCase(Locale.ROOT), seconds(t0));
    ObjectNode root = JSON.createObjectNode();
    root.put("set", set.name().toLowerCase(Locale.ROOT));
    ArrayNode texts = root.putArray("texts");
    synth.queryTexts(set, o.queries).forEach(texts::add);
    ArrayNode vs = root.putArray("vectors");
    for (float[] v : qv) {
      ArrayNode a = vs.addArray();
      for (float f : v) {
        a.add(f);
      }
    }
    ArrayNode tenants = root.putArray("tenants");
    for (int q = 0; q < o.queries; q++) {
      tenants.add(SyntheticCorpus.TENANTS[q % SyntheticCorpus.TENANTS.length]);
    }
    ArrayNode t = root.putArray("truth");
    for (int[] ids : truth) {
      ArrayNode a = t.addArray();
      for (int i : ids) {
        a.add(SyntheticCorpus.id(i));
      }
    }
    JSON.writeValue(out.toFile(), root);
  }

  static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).strip();
    } catch (IOException e) {
      return "unknown";
    }
  }

  static void log(String format, Object... args) {
    System.err.printf(Locale.ROOT, "bench-scale: " + format + "%n", args);
  }

}
