package dev.kiln.cli;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import dev.kiln.config.ConfigOverrides;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * File system settings of the commands that read a snapshots root ({@code search}, {@code eval},
 * {@code serve}, {@code snapshots}): the {@code filesystem:} section of the same YAML the build reads, with
 * {@code --set filesystem.KEY=VALUE} and {@code --fs KEY=VALUE} overrides. Keys are Flink's ({@code s3.endpoint}, {@code s3.access-key}, …, and
 * {@code flink.hadoop.*} for the Hadoop client behind {@code hdfs://}).
 */
public final class FileSystemOptions {
  /**
   * Where credentials go. Never on the command line: arguments are visible to every user of the
   * machine ({@code ps}, {@code /proc}) and stay in shell history.
   */
  public static final String CREDENTIALS = "Keys and secrets belong in the environment (AWS_ACCESS_KEY_ID, "
      + "AWS_SECRET_ACCESS_KEY) or in the config file's 'filesystem:' section, not in --fs: command lines "
      + "are visible to other users and kept in shell history";

  @Option(names = "--config", paramLabel = "FILE",
      description = "YAML config whose 'filesystem:' section holds the file system settings for a remote "
          + "--snapshots (default: the build's " + BuildDefaults.DEFAULT_CONFIG + ")")
  Path configFile;

  @Option(names = {"--fs", "--filesystem"}, paramLabel = "KEY=VALUE",
      description = "a file system setting over the config's, e.g. --fs s3.endpoint=http://host:9000; repeatable. "
          + CREDENTIALS)
  Map<String, String> overrides;

  @Option(names = ConfigOverrides.OPTION, paramLabel = "KEY=VALUE",
      description = "override a key of the config's 'filesystem:' section, e.g. --set filesystem.s3.endpoint=http://host:9000; "
          + "repeatable, applied after the config file and before --fs (the config's other keys are the build's)")
  List<String> set;

  /**
   * Whether the command line names a config or a file system setting. A local root reads no setting;
   * it reads them anyway when one is given, so that a wrong {@code --config} or key still fails. Left
   * unread otherwise: the default config's YAML and its typed binding were a tenth of a cold search's
   * open (issue 47.4).
   */
  boolean given() {
    return configFile != null || (set != null && !set.isEmpty()) || (overrides != null && !overrides.isEmpty());
  }

  /**
   * The effective settings: the config's {@code filesystem:} section (an explicit {@code --config} must
   * exist; the default one is used only if present), then {@code --set filesystem.…}, then {@code --fs}.
   */
  Map<String, String> settings() {
    Path file = configFile != null ? configFile : BuildDefaults.config();
    BuildConfig config = configFile != null || Files.isRegularFile(file) ? BuildConfig.load(file) : new BuildConfig();
    ConfigOverrides<BuildConfig> changes = ConfigOverrides.of(BuildConfig.class).parse(set);
    for (String key : changes.keys()) {
      if (!key.equals("filesystem") && !key.startsWith("filesystem.")) {
        throw new ConfigException(ConfigOverrides.OPTION + " " + key + ": this command reads only the 'filesystem.*' keys"
            + " of the config; '" + key + "' is a build setting (kiln build " + ConfigOverrides.OPTION + " " + key + "=…)");
      }
    }
    warnAboutSecrets(set);
    if (overrides != null) {
      overrides.forEach((key, value) -> changes.set("filesystem." + key, value, "--fs " + key));
    }
    return new LinkedHashMap<>(changes.applyTo(config).filesystem);
  }

  /**
   * Warns (standard error) for each {@code --set} of a secret-looking key ({@link BuildConfig#isSecret}):
   * it works, but the value is visible to other users of the machine and stays in shell history.
   */
  public static void warnAboutSecrets(List<String> set) {
    if (set == null) {
      return;
    }
    for (String kv : set) {
      String key = kv.contains("=") ? kv.substring(0, kv.indexOf('=')).strip() : kv;
      if (BuildConfig.isSecret(key)) {
        System.err.println("kiln: warning: " + ConfigOverrides.OPTION + " " + key + " puts a secret on the command line. "
            + CREDENTIALS);
      }
    }
  }
}
