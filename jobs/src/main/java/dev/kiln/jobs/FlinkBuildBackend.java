package dev.kiln.jobs;

import dev.kiln.cli.BuildBackend;
import dev.kiln.cli.Drift;
import dev.kiln.config.BuildConfig;
import dev.kiln.operators.fs.FlinkFileSystems;
import dev.kiln.regress.RegressionRunner;
import dev.kiln.regress.RegressionSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code kiln build} and {@code kiln regress} on Flink: a local mini-cluster, or under {@code flink run}
 * the cluster's environment. Registered as the CLI's {@link BuildBackend} service.
 */
public final class FlinkBuildBackend implements BuildBackend {
  @Override
  public void build(BuildConfig config, boolean cluster, boolean force) throws Exception {
    StreamExecutionEnvironment env = cluster
        ? StreamExecutionEnvironment.getExecutionEnvironment()
        : BuildJob.localEnvironment(config.parallelism, FlinkFileSystems.initialize(config.filesystem));
    new SnapshotBuilder(config, System.out).force(force).build(env);
  }

  @Override
  public List<Drift> regress(List<Path> files, Set<String> only, boolean fast, Path datasets, Path home, Path work,
      BuildConfig defaults) throws Exception {
    RegressionRunner runner = new RegressionRunner(datasets, home, work, defaults, System.err);
    List<Drift> all = new ArrayList<>();
    for (Path f : files) {
      RegressionSpec spec = RegressionSpec.load(f);
      if (only.isEmpty() || only.contains(spec.dataset())) {
        all.addAll(runner.run(spec, fast));
      }
    }
    return all;
  }
}
