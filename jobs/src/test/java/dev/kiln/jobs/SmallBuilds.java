package dev.kiln.jobs;

import dev.kiln.config.BuildConfig;
import dev.kiln.snapshot.Manifest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

/**
 * The small builds the incremental tests run: two shards, two subtasks, chunks of 48 tokens (so a
 * fixture document makes several), on a local mini-cluster, the builder's output kept for assertions.
 */
final class SmallBuilds {
  private SmallBuilds() {}

  static BuildConfig config(String corpus, String snapshots) {
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(corpus);
    config.snapshots = snapshots;
    config.shards = 2;
    config.parallelism = 2;
    config.chunker.size = 48;
    config.chunker.overlap = 8;
    return config;
  }

  /** Builds {@code corpus} into {@code snapshots} after {@code tweak}, printing to {@code out}. */
  static Manifest build(String corpus, String snapshots, Consumer<BuildConfig> tweak, ByteArrayOutputStream out)
      throws Exception {
    BuildConfig config = config(corpus, snapshots);
    tweak.accept(config);
    return new SnapshotBuilder(config, new PrintStream(out, true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2)).manifest();
  }
}
