package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.testing.CliOnly;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CLI module's classpath, on which {@code scripts/kiln} runs search, eval, serve and snapshots,
 * holds no Flink; {@code build} there says where it lives. (Searching from it, local and remote, is
 * in {@code S3SnapshotsITCase} and {@code HdfsITCase}.)
 */
class CliClasspathITCase {
  @Test
  void theCliClasspathHasNoFlinkAndNoBuildJob() throws Exception {
    List<String> entries = CliOnly.classpath();
    assertTrue(entries.size() > 10, entries.toString());
    for (String e : entries) {
      String name = Path.of(e).getFileName().toString();
      assertTrue(!name.startsWith("flink-") && !e.contains("/org/apache/flink/"), "Flink on the CLI classpath: " + e);
      assertTrue(!name.startsWith("kiln-jobs") && !name.startsWith("kiln-operators"), "the build job on it: " + e);
    }
    assertTrue(entries.stream().anyMatch(e -> e.contains("kiln-searcher")), "the searcher is on it");
    assertTrue(entries.stream().anyMatch(e -> e.contains("kiln-storage")), "the storage is on it");
  }

  @Test
  void buildOnTheCliClasspathIsAUsageErrorNamingTheBuildJob() throws Exception {
    CliOnly.Result build = CliOnly.run(Map.of(), "build", "--corpus", "c", "--snapshots", "s");
    assertEquals(2, build.exitCode(), build.err());
    assertTrue(build.err().contains("'kiln build' needs the build job"), build.err());
    CliOnly.Result regress = CliOnly.run(Map.of(), "regress", "--regressions", "../configs/regressions");
    assertEquals(2, regress.exitCode(), regress.err());
    assertTrue(regress.err().contains("'kiln regress' needs the build job"), regress.err());
    CliOnly.Result help = CliOnly.run(Map.of(), "search", "--help");
    assertEquals(0, help.exitCode(), help.err());
    assertTrue(help.out().contains("--snapshots"), help.out());
  }
}
