package dev.kiln.regress;

import dev.kiln.cli.Drift;
import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import dev.kiln.eval.EvalReport;
import dev.kiln.eval.Evaluator;
import dev.kiln.eval.Qrels;
import dev.kiln.eval.Queries;
import dev.kiln.jobs.BuildJob;
import dev.kiln.jobs.ModelChunking;
import dev.kiln.jobs.SnapshotBuilder;
import dev.kiln.search.SearchMode;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Checksums;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Builds what a regression needs (unless a snapshot built with the same settings from the same files
 * is already in the work directory), evaluates every run and compares it with its expectation.
 */
public final class RegressionRunner {
  private final Path datasetsRoot;
  private final Path home;
  private final Path workDir;
  private final BuildConfig defaults;
  private final PrintStream log;

  public RegressionRunner(Path datasetsRoot, Path workDir, BuildConfig defaults, PrintStream log) {
    this(datasetsRoot, Path.of("."), workDir, defaults, log);
  }

  /**
   * @param home the Kiln home (the repository), against which a regression's {@code path} is resolved
   */
  public RegressionRunner(Path datasetsRoot, Path home, Path workDir, BuildConfig defaults, PrintStream log) {
    this.datasetsRoot = datasetsRoot;
    this.home = home;
    this.workDir = workDir;
    this.defaults = defaults;
    this.log = log;
  }

  public List<Drift> run(RegressionSpec spec, boolean fastOnly) throws Exception {
    List<RegressionSpec.Run> runs = spec.runs().stream().filter(r -> !fastOnly || r.fast()).toList();
    if (runs.isEmpty()) {
      return List.of();
    }
    Path dir = spec.folder(datasetsRoot, home);
    Path corpus = dir.resolve(spec.corpus());
    Path queries = dir.resolve(spec.queries());
    Path qrels = dir.resolve(spec.qrels());
    for (Path p : List.of(corpus, queries, qrels)) {
      if (!Files.isRegularFile(p)) {
        throw new ConfigException("regression " + spec.dataset() + ": file not found " + p
            + (spec.path() != null && !spec.path().isBlank()
                ? " (its 'path' is resolved against the Kiln home " + home + ")"
                : " (set --datasets to the folder that holds the BEIR sets)"));
      }
    }
    BuildConfig config = spec.buildConfig(copy(defaults));
    config.corpus = List.of(corpus.toString());
    // Auto chunk sizes resolved first, so that the snapshot's fingerprint names the size it is cut at.
    ModelChunking.resolve(config.validate());
    Path snapshots = workDir.resolve(spec.dataset() + "-" + fingerprint(config, corpus));
    config.snapshots = snapshots.toString();
    config.publish = true;
    config.validate();
    if (!Files.isRegularFile(snapshots.resolve("CURRENT"))) {
      log.println("regress: building " + spec.dataset() + " into " + snapshots);
      new SnapshotBuilder(config, log).build(BuildJob.localEnvironment(config.parallelism));
    } else {
      log.println("regress: reusing " + snapshots);
    }
    List<Drift> out = new ArrayList<>();
    Queries q = Queries.read(queries);
    Qrels j = Qrels.read(qrels);
    try (Searcher searcher = Searcher.open(snapshots)) {
      for (RegressionSpec.Run run : runs) {
        EvalReport report = new Evaluator(searcher).evaluate(q, j, SearchMode.parse(run.mode()));
        for (Map.Entry<String, Double> e : run.expected().entrySet()) {
          out.add(new Drift(spec.dataset(), run.mode(), e.getKey(), e.getValue(), metric(report, e.getKey()),
              run.tolerance()));
        }
      }
    }
    return out;
  }

  static double metric(EvalReport report, String name) {
    return switch (name) {
      case "ndcg@10" -> report.ndcg10();
      case "recall@100" -> report.recall100();
      case "mrr@10" -> report.mrr10();
      default -> throw new ConfigException("unknown metric '" + name + "': use ndcg@10, recall@100 or mrr@10");
    };
  }

  /** Same settings and same corpus bytes → same snapshot: reuse it instead of embedding again. */
  static String fingerprint(BuildConfig config, Path corpus) throws IOException {
    MessageDigest d = Checksums.newDigest();
    for (String line : config.describe()) {
      if (!line.startsWith("+ snapshots:") && !line.startsWith("+ corpus") && !line.startsWith("+ publish:")) {
        d.update(line.getBytes(StandardCharsets.UTF_8));
      }
    }
    d.update(Checksums.sha256(corpus).getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(d.digest()).substring(0, 12);
  }

  private static BuildConfig copy(BuildConfig c) throws IOException {
    var m = RegressionSpec.yaml();
    return m.readValue(m.writeValueAsBytes(c), BuildConfig.class);
  }
}
