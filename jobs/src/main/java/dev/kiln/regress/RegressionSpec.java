package dev.kiln.regress;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One dataset's regression: where its files are, how to build its snapshot (overrides of the default
 * build config), and the expected metrics per search mode with a tolerance. Kept as data in
 * {@code configs/regressions/<dataset>.yaml}, the Anserini way.
 *
 * @param dataset folder name under the datasets root
 * @param path optional folder of the dataset's files, relative to the Kiln home (the repository) or
 *     absolute, for small sets kept in the repository; when set, the datasets root is not used
 * @param corpus corpus file, relative to the dataset folder
 * @param queries queries file, relative to the dataset folder
 * @param qrels judgements file, relative to the dataset folder
 * @param build overrides applied on top of the default build config (same keys as configs/build.yaml)
 * @param runs the expected results
 */
public record RegressionSpec(
    String dataset, String path, String corpus, String queries, String qrels, JsonNode build, List<Run> runs) {

  /**
   * One evaluated mode.
   *
   * @param mode search mode
   * @param fast part of the {@code --fast} subset that CI runs
   * @param expected metric name ({@code ndcg@10}, {@code recall@100}, {@code mrr@10}) → expected value
   * @param tolerance allowed absolute difference
   */
  public record Run(String mode, boolean fast, Map<String, Double> expected, double tolerance) {}

  static ObjectMapper yaml() {
    return new ObjectMapper(new YAMLFactory())
        .setPropertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE)
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  public static RegressionSpec load(Path file) {
    try {
      RegressionSpec spec = yaml().readValue(file.toFile(), RegressionSpec.class);
      if (spec.dataset() == null || spec.runs() == null || spec.runs().isEmpty()) {
        throw new ConfigException(file + ": a regression needs 'dataset' and at least one run");
      }
      for (Run r : spec.runs()) {
        if (r.expected() == null || r.expected().isEmpty() || r.tolerance() <= 0) {
          throw new ConfigException(file + ": run '" + r.mode() + "' needs 'expected' metrics and a positive 'tolerance'");
        }
      }
      return spec;
    } catch (IOException e) {
      throw new ConfigException("cannot read regression " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The folder that holds this regression's files: {@code path} against the Kiln home when given,
   * else the dataset's folder under the datasets root.
   */
  public Path folder(Path datasetsRoot, Path home) {
    if (path != null && !path.isBlank()) {
      return home.resolve(path).normalize();
    }
    return datasetsRoot.resolve(dataset);
  }

  /** The default build config with this regression's overrides applied. */
  public BuildConfig buildConfig(BuildConfig defaults) {
    if (build == null || build.isNull()) {
      return defaults;
    }
    try {
      ObjectMapper m = yaml();
      return m.readerForUpdating(defaults).readValue(m.treeAsTokens(build), BuildConfig.class);
    } catch (IOException e) {
      throw new ConfigException("bad 'build' overrides in regression " + dataset + ": " + e.getMessage(), e);
    }
  }
}
