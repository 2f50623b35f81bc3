package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import picocli.CommandLine;

/** {@code --set} on the reading commands: only the config's {@code filesystem.*} keys mean anything to them. */
class ReadingCommandsSetOptionTest {
  static final Path CONFIG = Path.of("..", "configs", "build.yaml");

  @Test
  void readingCommandsRefuseBuildKeysByName() {
    SearchCommand search = new SearchCommand();
    new CommandLine(search).parseArgs("--config", CONFIG.toString(), "--set", "index.hnsw-m=32", "q");
    String m = message(search.fs::settings);
    assertTrue(m.contains("--set index.hnsw-m: this command reads only the 'filesystem.*' keys"), m);
    ServeCommand serve = new ServeCommand();
    new CommandLine(serve).parseArgs("--config", CONFIG.toString(), "--set", "filesystem.s3.endpoint=http://a",
        "--fs", "s3.path.style.access=true");
    assertEquals(Map.of("s3.endpoint", "http://a", "s3.path.style.access", "true"), serve.fs.settings());
  }

  private static String message(Executable run) {
    return assertThrows(ConfigException.class, run).getMessage();
  }
}
