package dev.kiln.cli;

import dev.kiln.config.BuildConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * File system settings of the commands that read a snapshots root ({@code search}, {@code eval},
 * {@code serve}): the {@code filesystem:} section of the same YAML the build reads, with {@code --fs}
 * overrides. Keys are Flink's ({@code s3.endpoint}, {@code s3.access-key}, …, and
 * {@code flink.hadoop.*} for the Hadoop client behind {@code hdfs://}).
 */
final class FileSystemOptions {
  @Option(names = "--config", paramLabel = "FILE",
      description = "YAML config whose 'filesystem:' section holds the file system settings for a remote "
          + "--snapshots (default: the build's " + BuildCommand.DEFAULT_CONFIG + ")")
  Path configFile;

  @Option(names = {"--fs", "--filesystem"}, paramLabel = "KEY=VALUE",
      description = "a file system setting over the config's, e.g. --fs s3.endpoint=http://host:9000 "
          + "--fs s3.access-key=KEY --fs s3.secret-key=SECRET; repeatable")
  Map<String, String> overrides;

  /**
   * The effective settings: the config's {@code filesystem:} section (an explicit {@code --config} must
   * exist; the default one is used only if present), then {@code --fs}.
   */
  Map<String, String> settings() {
    Map<String, String> settings = new LinkedHashMap<>();
    Path file = configFile != null ? configFile : BuildCommand.defaultConfig();
    if (configFile != null || Files.isRegularFile(file)) {
      settings.putAll(BuildConfig.load(file).filesystem);
    }
    if (overrides != null) {
      settings.putAll(overrides);
    }
    return settings;
  }
}
