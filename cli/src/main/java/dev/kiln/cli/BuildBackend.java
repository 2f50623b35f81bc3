package dev.kiln.cli;

import dev.kiln.cli.progress.BuildProgress;
import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * What {@code kiln build} and {@code kiln regress} hand their work to: the Flink build job, which
 * module {@code jobs} provides as a {@link ServiceLoader} service
 * ({@code META-INF/services/dev.kiln.cli.BuildBackend}). This module parses and checks the command
 * line; it knows no Flink, so {@code search} and {@code serve} run without it on their classpath.
 */
public interface BuildBackend {
  /**
   * Builds (and, as configured, publishes) one snapshot.
   *
   * @param cluster use the cluster's environment ({@code flink run}) instead of a local mini-cluster
   * @param force build even when {@code CURRENT} was built from the same inputs
   */
  void build(BuildConfig config, boolean cluster, boolean force) throws Exception;

  /**
   * As {@link #build(BuildConfig, boolean, boolean)}, reporting each stage's progress to {@code progress}
   * while the job runs; a backend that cannot watch its job reports nothing.
   */
  default void build(BuildConfig config, boolean cluster, boolean force, BuildProgress progress) throws Exception {
    build(config, cluster, force);
  }

  /**
   * Runs regression files: builds each dataset's snapshot when missing, evaluates it, and returns
   * every measured metric against its expectation.
   *
   * @param only datasets to run, or empty for all
   */
  List<Drift> regress(List<Path> files, Set<String> only, boolean fast, Path datasets, Path home, Path work,
      BuildConfig defaults) throws Exception;

  /** The build job on the classpath; a usage error saying how to get it when there is none. */
  static BuildBackend find(String command) {
    Iterator<BuildBackend> found = ServiceLoader.load(BuildBackend.class).iterator();
    if (!found.hasNext()) {
      throw new ConfigException("'kiln " + command + "' needs the build job (module kiln-jobs, with Flink) on the"
          + " classpath, and this one has only the searcher: run it through scripts/kiln, which adds it for build"
          + " and regress");
    }
    return found.next();
  }
}
