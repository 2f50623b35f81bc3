package dev.kiln.cli;

import dev.kiln.cli.progress.BuildProgress;
import dev.kiln.cli.progress.JobProgressLogs;
import dev.kiln.cli.progress.ProgressMode;
import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigOverrides;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kiln build}: runs the build job and publishes a snapshot. The YAML config is overridden by
 * {@code --set KEY=VALUE} (any key), then by the specific options, all through {@link ConfigOverrides}.
 */
@Command(name = "build", mixinStandardHelpOptions = true,
    description = "Build a snapshot from a corpus and publish it.")
public final class BuildCommand implements Callable<Integer> {
  /** The config used when --config is absent. */
  static final String DEFAULT_CONFIG = BuildDefaults.DEFAULT_CONFIG;
  /** How often --progress plain prints a line per moving stage. */
  static final int PROGRESS_SECONDS = 10;

  @Option(names = "--config", paramLabel = "FILE", description = "YAML config (default: ${kiln.home}/" + DEFAULT_CONFIG + ")")
  Path configFile;

  @Option(names = "--corpus", paramLabel = "URI", description = "corpus file or directory; repeatable")
  List<String> corpus;

  @Option(names = "--format", description = "auto|jsonl|markdown|text|parquet|html|pdf|docx|pptx (auto: by extension, .gz looked through)")
  String format;

  @Option(names = "--snapshots", paramLabel = "URI", description = "snapshots root")
  String snapshots;

  @Option(names = "--fs", paramLabel = "KEY=VALUE",
      description = "a file system setting over the config's 'filesystem:' section (s3.endpoint, "
          + "s3.path.style.access, flink.hadoop.*); repeatable. " + FileSystemOptions.CREDENTIALS)
  Map<String, String> fs;

  @Option(names = "--shards", paramLabel = "N")
  Integer shards;

  @Option(names = "--parallelism", paramLabel = "N")
  Integer parallelism;

  @Option(names = "--model", paramLabel = "NAME|DIR", description = "bundled model name or custom model directory")
  String model;

  @Option(names = "--chunk-size", paramLabel = "TOKENS")
  Integer chunkSize;

  @Option(names = "--chunk-overlap", paramLabel = "TOKENS")
  Integer chunkOverlap;

  @Option(names = "--chunker", paramLabel = "STRATEGY",
      description = "auto (structure-aware for Markdown/HTML, recursive for text) | window | recursive")
  String chunker;

  @Option(names = "--parents", paramLabel = "TOKENS",
      description = "parent-child chunking: index chunk-size children of parents of this many tokens")
  Integer parents;

  @Option(names = "--batch-size", paramLabel = "N", description = "chunks per inference call (0 = auto: 1 on CPU, 32 on GPU)")
  Integer batchSize;

  @Option(names = "--device", paramLabel = "auto|cpu|gpu|gpu:N", description = "device of each embedding slot")
  String device;

  @Option(names = "--vector-encoding", paramLabel = "float32|int8|int4|binary",
      description = "how the HNSW graph's vectors are stored (quantised ones are rescored with float32 at search time)")
  String vectorEncoding;

  @Option(names = "--no-reuse", description = "embed every chunk; reuse no stored vectors")
  boolean noReuse;

  @Option(names = "--reuse-from", paramLabel = "ID", description = "reuse stored vectors of this snapshot (default: CURRENT)")
  String reuseFrom;

  @Option(names = "--incremental", paramLabel = "auto|off",
      description = "auto (default): over a compatible CURRENT, rewrite only changed documents; off: a full build")
  String incremental;

  @Option(names = "--changelog-topic", paramLabel = "TOPIC",
      description = "changelog build: base snapshot + this Kafka topic's records since the base's offsets")
  String changelogTopic;

  @Option(names = "--kafka-bootstrap", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers")
  String kafkaBootstrap;

  @Option(names = "--base-snapshot", paramLabel = "ID|current",
      description = "snapshot a changelog build starts from (default: current)")
  String baseSnapshot;

  @Option(names = "--changelog-format", paramLabel = "kiln|debezium|auto",
      description = "envelope of the changelog topic's records (default: auto, decided per record)")
  String changelogFormat;

  @Option(names = "--no-publish", description = "build and verify, but leave CURRENT as it is")
  boolean noPublish;

  @Option(names = "--restart-attempts", paramLabel = "N",
      description = "times Flink restarts the failed part of the build before it fails; 0 = none (default: 3)")
  Integer restartAttempts;

  @Option(names = "--force",
      description = "publish even if CURRENT no longer names the snapshot this build started from")
  boolean force;

  @Option(names = "--progress", paramLabel = "auto|bar|plain|none",
      description = "per-stage progress with rate and ETA on stderr: bars on a terminal, log lines every "
          + PROGRESS_SECONDS + " s otherwise (default: auto: bars when kiln runs at a terminal)")
  String progress;

  @Option(names = "--cluster", hidden = true, description = "use the cluster's environment (flink run)")
  boolean cluster;

  @Option(names = ConfigOverrides.OPTION, paramLabel = "KEY=VALUE",
      description = "override any key of the YAML config, e.g. --set index.hnsw-m=32, --set embed.batch-size=8, "
          + "--set filesystem.s3.endpoint=http://host:9000, --set corpus=[a, b]; repeatable. Precedence: the "
          + "config file, then --set in order, then the specific options above")
  List<String> set;

  @Override
  public Integer call() throws Exception {
    BuildConfig config = effectiveConfig();
    ProgressMode mode = ProgressMode.resolve(progress, ProgressMode.isTerminal());
    JobProgressLogs.quietUnlessAlone(mode);
    BuildBackend.find("build").build(config, cluster, force,
        BuildProgress.open(mode, System.err, Duration.ofSeconds(PROGRESS_SECONDS)));
    return Kiln.OK;
  }

  /** The config file, then {@code --set}, then the specific options, validated once. */
  BuildConfig effectiveConfig() {
    ConfigOverrides<BuildConfig> overrides = ConfigOverrides.of(BuildConfig.class).parse(set);
    FileSystemOptions.warnAboutSecrets(set);
    overrides.set("corpus", corpus, "--corpus")
        .set("format", format, "--format")
        .set("snapshots", snapshots, "--snapshots")
        .set("shards", shards, "--shards")
        .set("parallelism", parallelism, "--parallelism")
        .set("embed.model", model, "--model")
        .set("chunker.size", chunkSize, "--chunk-size")
        .set("chunker.overlap", chunkOverlap, "--chunk-overlap")
        .set("chunker.strategy", chunker, "--chunker")
        .set("chunker.parents.enabled", parents == null ? null : true, "--parents")
        .set("chunker.parents.size", parents, "--parents")
        .set("embed.batch-size", batchSize, "--batch-size")
        .set("embed.device", device, "--device")
        .set("index.vector-encoding", vectorEncoding, "--vector-encoding")
        .set("embed.reuse", noReuse ? false : null, "--no-reuse")
        .set("embed.reuse-from", reuseFrom, "--reuse-from")
        .set("incremental", incremental, "--incremental")
        .set("publish", noPublish ? false : null, "--no-publish")
        .set("restart-attempts", restartAttempts, "--restart-attempts")
        .set("changelog.topic", changelogTopic, "--changelog-topic")
        .set("changelog.bootstrap", kafkaBootstrap, "--kafka-bootstrap")
        .set("changelog.base-snapshot", baseSnapshot, "--base-snapshot")
        .set("changelog.format", changelogFormat, "--changelog-format");
    if (fs != null) {
      fs.forEach((key, value) -> overrides.set("filesystem." + key, value, "--fs " + key));
    }
    return overrides.applyTo(BuildConfig.load(resolveConfig())).validate();
  }

  private Path resolveConfig() {
    return configFile != null ? configFile : BuildDefaults.config();
  }

}
