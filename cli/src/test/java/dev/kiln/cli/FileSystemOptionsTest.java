package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** search/eval/serve file system settings: the config's section, --fs over it, and credential checks. */
class FileSystemOptionsTest {
  @Test
  void fsOverridesTheConfigsFilesystemSection(@TempDir Path dir) throws Exception {
    Path config = Files.writeString(dir.resolve("c.yaml"),
        "filesystem:\n  s3.endpoint: http://a:9000\n  s3.access-key: from-config\n");
    SearchCommand search = new SearchCommand();
    new CommandLine(search).parseArgs("--config", config.toString(), "--fs", "s3.access-key=from-flag",
        "--fs", "flink.hadoop.dfs.replication=1", "q");
    assertEquals(Map.of("s3.endpoint", "http://a:9000", "s3.access-key", "from-flag",
        "flink.hadoop.dfs.replication", "1"), search.fs.settings());
  }

  @Test
  void anExplicitConfigMustExist(@TempDir Path dir) {
    EvalCommand eval = new EvalCommand();
    new CommandLine(eval).parseArgs("--queries", "q", "--qrels", "r", "--config", dir.resolve("none.yaml").toString());
    ConfigException e = assertThrows(ConfigException.class, eval.fs::settings);
    assertTrue(e.getMessage().contains("none.yaml"), e.getMessage());
  }

  @Test
  void halfAKeyPairOrNoKeysForACustomEndpointAreConfigErrors() {
    Map<String, String> half = Map.of("s3.secret-key", "s");
    assertTrue(assertThrows(ConfigException.class, () -> SnapshotRoots.checkS3Credentials("s3://b/r", half))
        .getMessage().contains("s3.access-key is not"));
    Map<String, String> none = Map.of("s3.endpoint", "http://minio:9000");
    assertTrue(assertThrows(ConfigException.class, () -> SnapshotRoots.checkS3Credentials("s3://b/r", none))
        .getMessage().contains("--fs"));
    // Plain AWS without keys may still use instance or profile credentials.
    SnapshotRoots.checkS3Credentials("s3://b/r", Map.of());
  }

  @Test
  void secretsAreMaskedInTheLog() {
    assertEquals(Map.of("s3.access-key", "****", "s3.secret-key", "****", "s3.endpoint", "http://e"),
        SnapshotRoots.masked(Map.of("s3.access-key", "k", "s3.secret-key", "s", "s3.endpoint", "http://e")));
  }
}
