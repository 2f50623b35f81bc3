package dev.kiln.operators.fs;

import dev.kiln.snapshot.io.RemoteRoots;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.plugin.DefaultPluginManager;
import org.apache.flink.core.plugin.DirectoryBasedPluginFinder;
import org.apache.flink.core.plugin.PluginConfig;
import org.apache.flink.core.plugin.PluginDescriptor;
import org.apache.flink.core.plugin.PluginManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes Flink's file systems (and with them {@code s3://} through the {@code flink-s3-fs-presto}
 * plugin) available in this JVM. The plugin is loaded from a plugins directory, never from the flat
 * classpath, so its shaded dependencies cannot clash with Kiln's: the directory is the system property
 * {@code kiln.flink.plugins} (the launcher points it at {@code jobs/target/flink-plugins}) or the
 * environment variable {@code FLINK_PLUGINS_DIR}.
 *
 * <p>S3 settings come from the given map (keys as in Flink: {@code s3.endpoint},
 * {@code s3.path.style.access}, {@code s3.access-key}, {@code s3.secret-key}), and otherwise from the
 * usual environment variables {@code AWS_ENDPOINT_URL_S3} / {@code AWS_ENDPOINT_URL},
 * {@code AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY}. A custom endpoint implies path-style
 * access unless set otherwise, as S3-compatible servers expect.
 */
public final class FlinkFileSystems {
  private static final Logger LOG = LoggerFactory.getLogger(FlinkFileSystems.class);
  public static final String PLUGINS_PROPERTY = "kiln.flink.plugins";

  private FlinkFileSystems() {}

  /** Initialises Flink's file systems with {@code settings} over the environment's S3 settings. */
  public static synchronized Configuration initialize(Map<String, String> settings) {
    Configuration conf = configuration(settings, System.getenv());
    PluginManager plugins = pluginManager(conf);
    FileSystem.initialize(conf, plugins);
    return conf;
  }

  static Configuration configuration(Map<String, String> settings, Map<String, String> env) {
    Configuration conf = new Configuration();
    putIfPresent(conf, "s3.endpoint", firstNonBlank(env.get("AWS_ENDPOINT_URL_S3"), env.get("AWS_ENDPOINT_URL")));
    putIfPresent(conf, "s3.access-key", env.get("AWS_ACCESS_KEY_ID"));
    putIfPresent(conf, "s3.secret-key", env.get("AWS_SECRET_ACCESS_KEY"));
    settings.forEach(conf::setString);
    if (conf.containsKey("s3.endpoint") && !conf.containsKey("s3.path.style.access")) {
      conf.setString("s3.path.style.access", "true");
    }
    return conf;
  }

  private static PluginManager pluginManager(Configuration conf) {
    String dir = System.getProperty(PLUGINS_PROPERTY);
    if (dir == null || dir.isBlank()) {
      dir = System.getenv("FLINK_PLUGINS_DIR");
    }
    if (dir == null || dir.isBlank() || !Files.isDirectory(Path.of(dir))) {
      return new DefaultPluginManager(List.of(), PluginConfig.fromConfiguration(conf).getAlwaysParentFirstPatterns());
    }
    try {
      List<PluginDescriptor> found = List.copyOf(new DirectoryBasedPluginFinder(Path.of(dir)).findPlugins());
      LOG.info("Flink file system plugins from {}: {}", dir,
          found.stream().map(PluginDescriptor::getPluginId).toList());
      return new DefaultPluginManager(found, PluginConfig.fromConfiguration(conf).getAlwaysParentFirstPatterns());
    } catch (IOException e) {
      throw new IllegalStateException("cannot read Flink plugins directory " + dir + ": " + e.getMessage(), e);
    }
  }

  private static void putIfPresent(Configuration conf, String key, String value) {
    if (value != null && !value.isBlank()) {
      conf.setString(key, value);
    }
  }

  private static String firstNonBlank(String a, String b) {
    return a != null && !a.isBlank() ? a : b;
  }

  /** Whether a snapshots root or corpus names a non-local file system: {@link RemoteRoots#isRemote}. */
  public static boolean isRemote(String uri) {
    return RemoteRoots.isRemote(uri);
  }
}
