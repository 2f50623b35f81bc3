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
  /**
   * Where credentials go. Never on the command line: arguments are visible to every user of the
   * machine ({@code ps}, {@code /proc}) and stay in shell history.
   */
  static final String CREDENTIALS = "Keys and secrets belong in the environment (AWS_ACCESS_KEY_ID, "
      + "AWS_SECRET_ACCESS_KEY) or in the config file's 'filesystem:' section, not in --fs: command lines "
      + "are visible to other users and kept in shell history";

  @Option(names = "--config", paramLabel = "FILE",
      description = "YAML config whose 'filesystem:' section holds the file system settings for a remote "
          + "--snapshots (default: the build's " + BuildCommand.DEFAULT_CONFIG + ")")
  Path configFile;

  @Option(names = {"--fs", "--filesystem"}, paramLabel = "KEY=VALUE",
      description = "a file system setting over the config's, e.g. --fs s3.endpoint=http://host:9000; repeatable. "
          + CREDENTIALS)
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
