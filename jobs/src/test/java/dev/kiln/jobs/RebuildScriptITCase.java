package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.testing.FlinkTestCluster;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deploy/rebuild.sh} as a scheduler runs it, against a real session cluster (JobManager and a
 * TaskManager set up for several builds, as the image is): its {@code flink run} is Flink's own
 * command line ({@code CliFrontend}) from a {@code FLINK_HOME} whose {@code lib/} holds the cluster's
 * class path, and its gc runs from the job jar as the script says. Two nightly runs publish, each
 * followed by gc with {@code KILN_KEEP}; a run whose build fails exits non-zero and collects nothing.
 */
class RebuildScriptITCase {
  @TempDir static Path work;
  static FlinkTestCluster cluster;
  static Path flinkHome;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = new FlinkTestCluster(work.resolve("cluster"), List.of(SeveralBuildsITCase.PARENT_FIRST,
        "taskmanager.memory.jvm-metaspace.size: 384m", "taskmanager.memory.process.size: 1536m"));
    cluster.startTaskManager("tm", List.of(), FlinkTestCluster.sharedNativesLib(), List.of());
    cluster.awaitTaskManagers(1, 120);
    // A Flink installation as far as the script sees one: bin/flink and lib/.
    flinkHome = work.resolve("flink");
    Path lib = Files.createDirectories(flinkHome.resolve("lib"));
    for (Path jar : cluster.flinkClasspath()) {
      Files.createSymbolicLink(lib.resolve(jar.getFileName()), jar.toAbsolutePath());
    }
    Path flink = Files.createDirectories(flinkHome.resolve("bin")).resolve("flink");
    // As the distribution's bin/flink starts its client: Flink's lib/, and the module opening its default
    // env.java.opts.all gives every Flink JVM (the client serialises the job graph's unmodifiable maps).
    Files.writeString(flink, String.join("\n", "#!/usr/bin/env bash",
        "exec java --add-opens java.base/java.util=ALL-UNNAMED -cp \"$(dirname \"$0\")/../lib/*\""
            + " org.apache.flink.client.cli.CliFrontend \"$@\"", ""));
    Files.setPosixFilePermissions(flink, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Path config(String name, Path corpus, double maxBad) throws Exception {
    return Files.writeString(work.resolve(name + ".yaml"), String.join("\n",
        "corpus: [" + corpus + "]", "shards: 1", "chunker: {size: 48, overlap: 8}",
        "index: {recall-probe-samples: 5}", "ingest: {max-bad-fraction: " + maxBad + "}", ""));
  }

  /** Runs the script; returns its exit status, its output in {@code out}. */
  private static int rebuild(Path config, Path root, StringBuilder out) throws Exception {
    Path script = Path.of("..", "deploy", "rebuild.sh").toAbsolutePath().normalize();
    ProcessBuilder pb = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.put("KILN_JAR", FlinkTestCluster.jobJar().toAbsolutePath().toString());
    env.put("KILN_CONFIG", config.toString());
    env.put("KILN_SNAPSHOTS", root.toString());
    env.put("KILN_KEEP", "1");
    env.put("KILN_PARALLELISM", "1");
    env.put("FLINK_HOME", flinkHome.toString());
    env.put("FLINK_CONF_DIR", cluster.confDir().toString());
    env.put("PATH", Path.of(System.getProperty("java.home"), "bin") + File.pathSeparator + env.get("PATH"));
    Path log = Files.createTempFile(work, "rebuild-", ".log");
    Process p = pb.redirectOutput(log.toFile()).start();
    if (!p.waitFor(240, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError("rebuild.sh did not finish: " + Files.readString(log) + cluster.logs());
    }
    out.append(Files.readString(log));
    return p.exitValue();
  }

  @Test
  void twoNightlyRunsPublishAndCollectAndAFailedBuildCollectsNothing() throws Exception {
    Path fixture = Path.of(RebuildScriptITCase.class.getResource("/fixture/corpus.jsonl").toURI());
    Path corpus = work.resolve("corpus.jsonl");
    List<String> lines = new ArrayList<>(Files.readAllLines(fixture).subList(0, 4));
    Files.write(corpus, lines);
    Path root = work.resolve("snapshots");
    Path ok = config("nightly", corpus, 0.5);
    SnapshotStore store = new SnapshotStore(root);

    StringBuilder first = new StringBuilder();
    assertEquals(0, rebuild(ok, root, first), first + cluster.logs());
    String night1 = store.currentId();
    lines.add(Files.readAllLines(fixture).get(5));
    Files.write(corpus, lines);
    StringBuilder second = new StringBuilder();
    assertEquals(0, rebuild(ok, root, second), second + cluster.logs());
    String night2 = store.currentId();
    assertNotEquals(night1, night2);
    assertTrue(second.toString().contains("built and published; removing old snapshots"), second.toString());
    // gc --keep KILN_KEEP=1 ran: it keeps the newest and, protected for a rollback, CURRENT's predecessor.
    assertTrue(second.toString().contains("kept:     [" + night1 + ", " + night2 + "]"), second.toString());
    assertTrue(second.toString().contains("expired:  []"), second.toString());
    assertEquals(List.of(night1, night2), store.list());
    assertTrue(store.verify(store.manifest(night2)).isEmpty());

    // A failing build (too much bad input for its gate): the script fails and gc does not run.
    lines.add("{\"_id\": \"broken\", \"text\": ");
    Files.write(corpus, lines);
    StringBuilder failed = new StringBuilder();
    assertNotEquals(0, rebuild(config("strict", corpus, 0.0), root, failed), failed.toString());
    assertFalse(failed.toString().contains("removing old snapshots"), failed.toString());
    assertEquals(night2, store.currentId(), "CURRENT stays on the last good build");
  }
}
