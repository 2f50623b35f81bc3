package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/lib/hugepages.sh}: which JVM options the launchers get for each kernel setting of
 * transparent huge pages, read from a stand-in for the sysfs file, sourced by bash as the launchers
 * do; and, on this machine, that a JVM given them runs with stdout clean.
 */
class HugePageScriptTest {
  private static final Path SCRIPT = Path.of("..", "scripts", "lib", "hugepages.sh").toAbsolutePath().normalize();
  private static final Path SYSFS = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");

  @TempDir Path dir;

  @Test
  void onlyTheOnRequestSettingGetsTheOption() throws Exception {
    assertEquals("-XX:+UseTransparentHugePages", args("always defer [madvise] never", ""));
    assertEquals("", args("[always] madvise never", ""), "the kernel gives huge pages unasked");
    assertEquals("", args("always madvise [never]", ""), "the JVM could not have them and would warn");
    assertEquals("", args(null, ""), "no such file: not Linux, or a kernel without THP");
  }

  @Test
  void kilnThpOffLeavesTheOptionOut() throws Exception {
    assertEquals("", args("always [madvise] never", "KILN_THP=off"));
  }

  @Test
  void aJvmGivenThisMachinesOptionsPrintsNothingOfItsOwnOnStdout() throws Exception {
    assumeTrue(Files.isReadable(SYSFS), "no " + SYSFS + " here");
    String options = args(Files.readString(SYSFS).strip(), "");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder("bash", "-c",
        "\"$0\" " + options + " -Xmx64m -XX:+AlwaysPreTouch -version 2>/dev/null; echo \"exit $?\"", java)
        .redirectErrorStream(false).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor());
    assertEquals("exit 0\n", out, "options [" + options + "]");
  }

  /** The options the script sets when the sysfs file holds {@code mode} (null: no file), under {@code env}. */
  private String args(String mode, String env) throws IOException, InterruptedException {
    Path sysfs = dir.resolve("enabled-" + System.nanoTime());
    if (mode != null) {
      Files.writeString(sysfs, mode + "\n");
    }
    ProcessBuilder pb = new ProcessBuilder("bash", "-c",
        "set -euo pipefail; source \"$0\"; KILN_THP_SYSFS=\"$1\" kiln_hugepage_args; "
            + "echo \"${KILN_HUGEPAGE_ARGS[*]}\"",
        SCRIPT.toString(), sysfs.toString());
    pb.environment().remove("KILN_THP");
    if (!env.isEmpty()) {
      String[] kv = env.split("=", 2);
      pb.environment().put(kv[0], kv[1]);
    }
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), err);
    assertTrue(out.endsWith("\n"), out);
    return out.strip();
  }
}
