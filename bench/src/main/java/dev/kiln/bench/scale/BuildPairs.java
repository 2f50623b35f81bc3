package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.config.BuildConfig;
import dev.kiln.snapshot.LocalFiles;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code scripts/bench-scale.sh --chunks N --pairs P}: the full build's comparison under the benchmark
 * protocol (docs/results/README.md, rules 1, 7, 8). Kiln's build ({@link KilnBuildStep}) and the fair
 * raw Lucene build ({@link RawLuceneStep}) of the same corpus, alternated P times — K R, then R K, then
 * K R … so that neither side always runs on the page cache or the file-system state the other left —
 * each in a fresh JVM on an emptied output folder. Per run: the step's wall, the process's wall (JVM
 * start included), its CPU time and the 1-minute load average at start and end (loaded: above the core
 * count at start); per pair Kiln's wall over raw's (above 1: Kiln slower) and the same for CPU, with
 * median, min and max. The raw side gets the build configuration's shards, parallelism, HNSW M and
 * beam width, RAM buffer and segment count.
 */
final class BuildPairs {
  private BuildPairs() {}

  static Map<String, Object> run(ScaleOptions o, Path corpus, Path logs) throws IOException, InterruptedException {
    BuildConfig c = BuildConfig.load(o.config);
    Path snapshots = o.runDir().resolve("snapshots");
    Path raw = o.runDir().resolve("raw-lucene");
    String[] rawArgs = {corpus.toString(), raw.toString(), Integer.toString(c.shards), Integer.toString(c.parallelism),
        Integer.toString(c.index.hnswM), Integer.toString(c.index.hnswBeamWidth), Integer.toString(c.index.ramBufferMb),
        Integer.toString(c.index.maxSegments)};
    List<Object> pairs = new ArrayList<>();
    List<Double> wallRatios = new ArrayList<>();
    List<Double> cpuRatios = new ArrayList<>();
    for (int p = 0; p < o.pairs; p++) {
      boolean kilnFirst = p % 2 == 0;
      Map<String, Object> pair = new LinkedHashMap<>();
      pair.put("pair", p + 1);
      pair.put("order", kilnFirst ? List.of("kiln", "raw") : List.of("raw", "kiln"));
      Map<String, Object> kiln = null;
      Map<String, Object> rawRun = null;
      for (boolean isKiln : kilnFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
        if (isKiln) {
          LocalFiles.deleteTree(snapshots);
          kiln = step(o, logs.resolve("pair" + (p + 1) + "-kiln.log"), KilnBuildStep.class,
              o.buildArgs(corpus, snapshots).toArray(String[]::new));
          kiln.put("documents", ((JsonNode) kiln.get("step")).path("chunks").asLong());
          LocalFiles.deleteTree(snapshots);
        } else {
          LocalFiles.deleteTree(raw);
          rawRun = step(o, logs.resolve("pair" + (p + 1) + "-raw.log"), RawLuceneStep.class, rawArgs);
          rawRun.put("documents", ((JsonNode) rawRun.get("step")).path("documents").asLong());
          LocalFiles.deleteTree(raw);
        }
      }
      double wallRatio = (double) kiln.get("wall_s") / (double) rawRun.get("wall_s");
      double cpuRatio = (double) kiln.get("cpu_s") / (double) rawRun.get("cpu_s");
      pair.put("kiln", kiln);
      pair.put("raw", rawRun);
      pair.put("kiln_over_raw_wall", wallRatio);
      pair.put("kiln_over_raw_cpu", cpuRatio);
      wallRatios.add(wallRatio);
      cpuRatios.add(cpuRatio);
      pairs.add(pair);
      ScaleBench.log("pair %d (%s): kiln %.1f s, raw %.1f s, kiln/raw wall %.3f, cpu %.3f", p + 1,
          kilnFirst ? "K R" : "R K", (double) kiln.get("wall_s"), (double) rawRun.get("wall_s"), wallRatio, cpuRatio);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("commit", System.getProperty("kiln.commit", "unknown"));
    out.put("jvm", Runtime.version().toString());
    out.put("config", o.config.toString());
    out.put("pairs", pairs);
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("kiln_over_raw_wall", PairStats.of(wallRatios, null));
    summary.put("kiln_over_raw_cpu", PairStats.of(cpuRatios, null));
    out.put("summary", summary);
    return out;
  }

  /** One run in a fresh JVM, with the machine's load around it and the child's CPU time. */
  private static Map<String, Object> step(ScaleOptions o, Path log, Class<?> main, String... args)
      throws IOException, InterruptedException {
    Map<String, Object> run = new LinkedHashMap<>();
    String load = ScaleBench.loadAverage();
    run.put("load_average", load);
    run.put("loaded", load1(load) > Runtime.getRuntime().availableProcessors());
    long t0 = System.nanoTime();
    JsonNode r = ChildRun.run(o.heap, log, main, args);
    run.put("process_wall_s", ScaleBench.seconds(t0));
    run.put("load_average_end", ScaleBench.loadAverage());
    run.put("wall_s", r.path("wall_s").asDouble());
    run.put("cpu_s", r.path("process_cpu_s").asDouble());
    run.put("peak_rss_mb", r.path("peak_rss_mb").asDouble());
    run.put("log", log.toString());
    run.put("step", r);
    return run;
  }

  static double load1(String loadavg) {
    try {
      return Double.parseDouble(loadavg.split(" ")[0]);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  /**
   * Copies the result under {@code <kiln.home>/bench/results/scale/} as {@code build-pairs-n<N>-<date>.json}
   * (then {@code …b.json}, {@code …c.json} for a second and third run that day): the raw file a table row names.
   */
  static Path keep(Path result, long chunks) throws IOException {
    Path dir = Path.of(System.getProperty("kiln.home", ".")).resolve("bench/results/scale");
    Files.createDirectories(dir);
    String base = "build-pairs-n" + chunks + "-" + LocalDate.now(ZoneOffset.UTC);
    Path target = dir.resolve(base + ".json");
    for (char s = 'b'; Files.exists(target) && s <= 'z'; s++) {
      target = dir.resolve(base + s + ".json");
    }
    return Files.copy(result, target);
  }

  static void print(Map<String, Object> result, PrintStream out) {
    @SuppressWarnings("unchecked")
    Map<String, Object> s = (Map<String, Object>) result.get("summary");
    for (String k : List.of("kiln_over_raw_wall", "kiln_over_raw_cpu")) {
      @SuppressWarnings("unchecked")
      Map<String, Object> st = (Map<String, Object>) s.get(k);
      out.printf(Locale.ROOT, "%-22s median %.3f (min %.3f, max %.3f) per pair %s%n", k, (Double) st.get("median"),
          (Double) st.get("min"), (Double) st.get("max"), st.get("per_pair"));
    }
  }
}
