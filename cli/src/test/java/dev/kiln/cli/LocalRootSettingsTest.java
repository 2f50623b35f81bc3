package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** A local root uses no file system setting: none is read unless the command line gives one. */
class LocalRootSettingsTest {
  @Test
  void aLocalRootWithoutSettingsOnTheCommandLineReadsNoConfig(@TempDir Path root) throws IOException {
    SearchCommand search = new SearchCommand();
    new CommandLine(search).parseArgs("q");
    assertFalse(search.fs.given());
    assertEquals(root, SnapshotRoots.local(root.toString(), null, search.fs));
  }

  @Test
  void aWrongConfigGivenForALocalRootStillFails(@TempDir Path root) throws IOException {
    Path broken = Files.writeString(root.resolve("broken.yaml"), "filesystem: [not, a, map\n");
    SearchCommand search = new SearchCommand();
    new CommandLine(search).parseArgs("--config", broken.toString(), "q");
    assertTrue(search.fs.given());
    assertThrows(ConfigException.class, () -> SnapshotRoots.local(root.toString(), null, search.fs));
    ServeCommand serve = new ServeCommand();
    new CommandLine(serve).parseArgs("--config", root.resolve("absent.yaml").toString());
    assertThrows(ConfigException.class, () -> SnapshotRoots.source(root.toString(), serve.fs));
  }

  @Test
  void aBuildKeyGivenForALocalRootIsRefusedByName(@TempDir Path root) {
    SearchCommand search = new SearchCommand();
    new CommandLine(search).parseArgs("--set", "index.hnsw-m=32", "q");
    ConfigException e = assertThrows(ConfigException.class, () -> SnapshotRoots.local(root.toString(), null, search.fs));
    assertTrue(e.getMessage().contains("index.hnsw-m"), e.getMessage());
  }
}
