package dev.kiln.jobs;

import dev.kiln.cli.BuildBackend;
import dev.kiln.cli.Drift;
import dev.kiln.cli.progress.BuildProgress;
import dev.kiln.config.BuildConfig;
import dev.kiln.operators.fs.FlinkFileSystems;
import dev.kiln.regress.RegressionRunner;
import dev.kiln.regress.RegressionSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HeartbeatManagerOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code kiln build} and {@code kiln regress} on Flink: a local mini-cluster, or under {@code flink run}
 * the cluster's environment. Registered as the CLI's {@link BuildBackend} service.
 */
public final class FlinkBuildBackend implements BuildBackend {
  /** How often the progress reporter reads the job's counters. */
  static final Duration PROGRESS_POLL = Duration.ofSeconds(1);

  @Override
  public void build(BuildConfig config, boolean cluster, boolean force) throws Exception {
    build(config, cluster, force, BuildProgress.none());
  }

  @Override
  public void build(BuildConfig config, boolean cluster, boolean force, BuildProgress progress) throws Exception {
    StreamExecutionEnvironment env;
    if (cluster) {
      env = StreamExecutionEnvironment.getExecutionEnvironment();
    } else {
      Configuration local = FlinkFileSystems.initialize(config.filesystem);
      // Running jobs' accumulators reach the JobManager with each TaskManager heartbeat (default every 10 s):
      // in the mini-cluster, in this JVM, a beat a second costs nothing and keeps the progress current.
      local.set(HeartbeatManagerOptions.HEARTBEAT_INTERVAL, PROGRESS_POLL);
      env = BuildJob.localEnvironment(config.parallelism, local);
    }
    env.registerJobListener(new ProgressListener(progress, PROGRESS_POLL));
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
