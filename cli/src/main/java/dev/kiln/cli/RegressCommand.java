package dev.kiln.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import dev.kiln.config.ConfigOverrides;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kiln regress}: reruns the quality regressions kept as data in {@code configs/regressions/}
 * and fails (exit 1) on any drift beyond tolerance.
 */
@Command(name = "regress", mixinStandardHelpOptions = true,
    description = "Rebuild (when needed) and evaluate the regression datasets; exit 1 on drift.")
public final class RegressCommand implements Callable<Integer> {
  @Option(names = "--fast", description = "only the runs marked fast (what CI runs)")
  boolean fast;

  @Option(names = "--json", description = "print the comparison as JSON")
  boolean json;

  @Option(names = "--datasets", paramLabel = "DIR",
      description = "folder holding the BEIR sets (default: ${kiln.home}/../shared/datasets)")
  Path datasets;

  @Option(names = "--regressions", paramLabel = "DIR",
      description = "regression files (default: ${kiln.home}/configs/regressions)")
  Path regressions;

  @Option(names = "--work", paramLabel = "DIR", defaultValue = "kiln-data/regress",
      description = "where built snapshots are kept for reuse (default: ${DEFAULT-VALUE})")
  Path work;

  @Option(names = "--only", paramLabel = "DATASET", description = "run only these datasets")
  List<String> only;

  @Option(names = ConfigOverrides.OPTION, paramLabel = "KEY=VALUE",
      description = "override a key of the build defaults the regression files start from (" + BuildDefaults.DEFAULT_CONFIG
          + "), e.g. --set parallelism=1; a key a regression file sets itself stays as the file says; repeatable")
  List<String> set;

  @Override
  public Integer call() throws Exception {
    Path home = Path.of(System.getProperty("kiln.home", "."));
    Path specs = regressions != null ? regressions : home.resolve("configs/regressions");
    Path data = datasets != null ? datasets : home.resolve("../shared/datasets").normalize();
    if (!Files.isDirectory(specs)) {
      throw new ConfigException("regressions folder not found: " + specs);
    }
    FileSystemOptions.warnAboutSecrets(set);
    BuildConfig defaults = ConfigOverrides.of(BuildConfig.class).parse(set)
        .applyTo(BuildConfig.load(BuildDefaults.config()));
    List<Path> files;
    try (Stream<Path> list = Files.list(specs)) {
      files = list.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    List<Drift> all = BuildBackend.find("regress").regress(files, only == null ? Set.of() : Set.copyOf(only), fast,
        data, home, work, defaults);
    if (all.isEmpty()) {
      throw new ConfigException("no regression run selected (files in " + specs + ", --fast " + fast + ")");
    }
    boolean drift = all.stream().anyMatch(Drift::drifted);
    if (json) {
      System.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(all));
    } else {
      System.out.printf(Locale.ROOT, "%-10s %-8s %-11s %9s %9s %7s  %s%n",
          "dataset", "mode", "metric", "expected", "actual", "tol", "status");
      for (Drift d : all) {
        System.out.printf(Locale.ROOT, "%-10s %-8s %-11s %9.4f %9.4f %7.4f  %s%n", d.dataset(), d.mode(),
            d.metric(), d.expected(), d.actual(), d.tolerance(), d.drifted() ? "DRIFT" : "ok");
      }
      System.out.println(drift ? "regress: DRIFT beyond tolerance" : "regress: all within tolerance");
    }
    return drift ? Kiln.FAILURE : Kiln.OK;
  }
}
