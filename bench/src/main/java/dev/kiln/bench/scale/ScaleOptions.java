package dev.kiln.bench.scale;

import dev.kiln.embed.ModelRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The scale benchmark's command line. */
final class ScaleOptions {
  static final String USAGE = """
      usage: bench-scale.sh --chunks N [--json] [--seed S] [--noise SIGMA] [--queries Q] [--recall-queries R]
                            [--threads 1,2,4] [--qps-queries N] [--heap 4g] [--work DIR] [--datasets DIR]
                            [--dataset scifact] [--model all-minilm-l6-v2-q] [--base-docs N] [--config configs/build.yaml] [--rebuilds 3] [--skip-raw] [--skip-rebuild]
                            [--skip-aot] [--skip-search] [--keep] [--resume] [--pairs P]""";

  private static final Set<String> VALUE_OPTIONS = Set.of("--chunks", "--seed", "--noise",
      "--queries", "--recall-queries", "--threads", "--qps-queries", "--heap", "--work", "--datasets", "--dataset",
      "--config", "--rebuilds", "--model", "--base-docs", "--pairs");

  long chunks = -1;
  boolean json;
  long seed = 42;
  double noise = 0.01;
  int queries = 500;
  int recallQueries = 200;
  String threads = "1,2,4";
  int qpsQueries = 1000;
  String heap = "4g";
  Path work = Path.of("kiln-data/bench-scale");
  Path datasets = Path.of("../shared/datasets");
  String dataset = "scifact";
  /**
   * The model whose vectors the corpus carries and its queries are embedded with: the base dataset is
   * built once with it (its own base folder unless it is the default), and every build of the synthetic
   * corpus runs with it as {@code embed.model} (the rest of {@link #config} as it is).
   */
  String model = "all-minilm-l6-v2-q";
  /**
   * The base is built from the dataset's first N documents only (0 = all): a slower model's base costs
   * minutes per thousand documents on a small machine, and the synthetic corpus needs real vectors of
   * the model to mix, not all of them. Its own base folder ({@code -first<N>}).
   */
  int baseDocs;
  Path config = Path.of("configs/build.yaml");
  boolean skipRaw;
  boolean skipRebuild;
  /**
   * How many times the 1 % rebuild (and the one with the AOT cache) runs, rolled back to the full
   * build before each: single rebuilds spread by ±10 % within minutes on a shared machine, so the
   * ratio to the full build is taken from their median.
   */
  int rebuilds = 3;
  /** No second rebuild with a JVM AOT cache (it runs only on JDK 25 and newer anyway). */
  boolean skipAot;
  boolean keep;
  /**
   * Go on from the corpus and Kiln build an earlier run of the same size kept ({@code --keep}) when
   * it left its build's result ({@code kiln-build.json}): the search and rebuild steps only.
   */
  boolean resume;
  /**
   * Kiln's full build and the raw Lucene build alternated this many times on one corpus ({@link
   * BuildPairs}) instead of the single Kiln-then-raw run and the search and rebuild steps; 0 = off.
   */
  int pairs;
  /** No search step (a run that only builds a corpus and its snapshot, for another benchmark to query). */
  boolean skipSearch;

  /**
   * {@code <work>/n<N>}; with {@code --pairs}, {@code <work>/n<N>-pairs}: the pairs empty their snapshots
   * folder before every build and drop the corpus and vectors at the end, which must not reach a kept
   * single run's snapshot (often linked to a long 1M build other benchmarks query) or its corpus.
   */
  Path runDir() {
    return work.resolve("n" + chunks + (pairs > 0 ? "-pairs" : ""));
  }

  /** The base dataset's folder: {@code base-<dataset>} for the default model, else {@code base-<dataset>-<model>}. */
  Path baseDir() {
    String name = model.equals(ModelRegistry.DEFAULT_MODEL) ? "base-" + dataset : "base-" + dataset + "-" + model;
    return work.resolve(baseDocs > 0 ? name + "-first" + baseDocs : name);
  }

  /** The build step's arguments after the result file: the configuration, corpus, root and the model. */
  List<String> buildArgs(Path corpus, Path snapshots) {
    return List.of(config.toString(), corpus.toString(), snapshots.toString(), "embed.model=" + model);
  }

  static ScaleOptions parse(String[] args) {
    ScaleOptions o = new ScaleOptions();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--json" -> o.json = true;
        case "--skip-raw" -> o.skipRaw = true;
        case "--skip-rebuild" -> o.skipRebuild = true;
        case "--skip-aot" -> o.skipAot = true;
        case "--keep" -> o.keep = true;
        case "--resume" -> o.resume = true;
        case "--skip-search" -> o.skipSearch = true;
        default -> {
          if (!VALUE_OPTIONS.contains(a)) {
            throw new IllegalArgumentException("unknown option " + a);
          }
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException(a + " needs a value");
          }
          String v = args[++i];
          try {
            switch (a) {
              case "--chunks" -> o.chunks = Long.parseLong(v.replace("_", "").toLowerCase(Locale.ROOT)
                  .replace("k", "000").replace("m", "000000"));
              case "--seed" -> o.seed = Long.parseLong(v);
              case "--noise" -> o.noise = Double.parseDouble(v);
              case "--queries" -> o.queries = Integer.parseInt(v);
              case "--recall-queries" -> o.recallQueries = Integer.parseInt(v);
              case "--threads" -> o.threads = v;
              case "--qps-queries" -> o.qpsQueries = Integer.parseInt(v);
              case "--heap" -> o.heap = v;
              case "--work" -> o.work = Path.of(v);
              case "--datasets" -> o.datasets = Path.of(v);
              case "--dataset" -> o.dataset = v;
              case "--config" -> o.config = Path.of(v);
              case "--rebuilds" -> o.rebuilds = Integer.parseInt(v);
              case "--model" -> o.model = v;
              case "--base-docs" -> o.baseDocs = Integer.parseInt(v);
              case "--pairs" -> o.pairs = Integer.parseInt(v);
              default -> throw new IllegalArgumentException("unknown option " + a);
            }
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException(a + ": not a number: " + v);
          }
        }
      }
    }
    if (o.chunks < 1) {
      throw new IllegalArgumentException("--chunks N (N >= 1) is required");
    }
    if (o.baseDocs < 0) {
      throw new IllegalArgumentException("--base-docs must be >= 0 (0 = every document), was " + o.baseDocs);
    }
    if (o.queries < 1 || o.recallQueries < 1 || o.qpsQueries < 1 || o.rebuilds < 1 || !(o.noise >= 0)) {
      throw new IllegalArgumentException(
          "--queries, --recall-queries, --qps-queries and --rebuilds must be >= 1, --noise >= 0");
    }
    if (o.pairs < 0 || o.pairs > 0 && (o.resume || o.skipRaw)) {
      throw new IllegalArgumentException("--pairs P: P >= 1, and not with --resume or --skip-raw (it runs both builds P times)");
    }
    if (!o.threads.matches("[1-9][0-9]*(,[1-9][0-9]*)*")) {
      throw new IllegalArgumentException("--threads: a comma-separated list of thread counts, was " + o.threads);
    }
    return o;
  }
}
