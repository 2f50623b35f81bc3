package dev.kiln.snapshot.io;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The Hadoop client configuration of a snapshots root, found the way Flink's Hadoop file systems find
 * theirs, so that a build (through Flink) and a searcher (through {@link HadoopSnapshotStorage}) reach
 * the same cluster: {@code core-site.xml} and {@code hdfs-site.xml} from {@code HADOOP_CONF_DIR} (else
 * {@code HADOOP_HOME/etc/hadoop}), then the {@code filesystem:} settings — {@code flink.hadoop.KEY}
 * as Hadoop's {@code KEY} (Flink's convention), and {@code fs.*} / {@code dfs.*} / {@code hadoop.*}
 * keys as they are.
 */
public final class HadoopSettings {
  private static final String FLINK_PREFIX = "flink.hadoop.";

  private HadoopSettings() {}

  public static Configuration configuration(Map<String, String> settings) {
    return configuration(settings, System.getenv());
  }

  static Configuration configuration(Map<String, String> settings, Map<String, String> env) {
    Configuration conf = new Configuration();
    Path dir = confDir(env);
    if (dir != null) {
      for (String name : new String[] {"core-site.xml", "hdfs-site.xml"}) {
        Path file = dir.resolve(name);
        if (Files.isRegularFile(file)) {
          conf.addResource(new org.apache.hadoop.fs.Path(file.toUri()));
        }
      }
    }
    settings.forEach((key, value) -> {
      if (key.startsWith(FLINK_PREFIX)) {
        conf.set(key.substring(FLINK_PREFIX.length()), value);
      } else if (key.startsWith("fs.") || key.startsWith("dfs.") || key.startsWith("hadoop.")) {
        conf.set(key, value);
      }
    });
    return conf;
  }

  private static Path confDir(Map<String, String> env) {
    String dir = env.get("HADOOP_CONF_DIR");
    if (dir != null && !dir.isBlank()) {
      return Path.of(dir);
    }
    String home = env.get("HADOOP_HOME");
    return home == null || home.isBlank() ? null : Path.of(home, "etc", "hadoop");
  }
}
