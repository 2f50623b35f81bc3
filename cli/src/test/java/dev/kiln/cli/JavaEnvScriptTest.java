package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/lib/java-env.sh}: a {@code JAVA_HOME} is judged by its {@code release} file, without
 * starting its JVM (a cold {@code kiln search} paid for a {@code java -version}); one too old, or one
 * without a release file whose {@code java -version} says so, gives way to the default JDK.
 */
class JavaEnvScriptTest {
  private static final Path SCRIPT = Path.of("..", "scripts", "lib", "java-env.sh").toAbsolutePath().normalize();

  @TempDir Path dir;

  @Test
  void aJdkWhoseReleaseFileSays21OrLaterIsKeptAndItsJavaNeverRun() throws Exception {
    Path jdk = fakeJdk("jdk25", "JAVA_VERSION=\"25.0.1\"", "21");
    assertEquals(jdk.toString(), javaHome(jdk));
    assertFalse(Files.exists(jdk.resolve("ran")), "java -version was run");
  }

  @Test
  void aJdkWhoseReleaseFileSaysAnOlderVersionIsReplaced() throws Exception {
    Path jdk = fakeJdk("jdk17", "JAVA_VERSION=\"17.0.15\"", "25");
    assertEquals(fallback(), javaHome(jdk));
  }

  @Test
  void aJdkWithoutAReleaseFileIsAskedItsVersion() throws Exception {
    Path jdk21 = fakeJdk("norelease21", null, "21.0.2");
    assertEquals(jdk21.toString(), javaHome(jdk21));
    assertTrue(Files.exists(jdk21.resolve("ran")), "no release file: java -version asked");
    Path jdk11 = fakeJdk("norelease11", null, "11.0.2");
    assertEquals(fallback(), javaHome(jdk11));
  }

  /** A JDK directory: {@code release} holding {@code releaseLine} (null: none), a java printing {@code version}. */
  private Path fakeJdk(String name, String releaseLine, String version) throws IOException {
    Path jdk = dir.resolve(name);
    Files.createDirectories(jdk.resolve("bin"));
    if (releaseLine != null) {
      Files.writeString(jdk.resolve("release"), "IMPLEMENTOR=\"test\"\n" + releaseLine + "\n");
    }
    Path java = jdk.resolve("bin").resolve("java");
    Files.writeString(java, "#!/usr/bin/env bash\ntouch \"$(dirname \"$0\")/../ran\"\n"
        + "echo 'openjdk version \"" + version + "\" 2024-01-16' >&2\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    return jdk;
  }

  /** What the script leaves in JAVA_HOME when started with {@code jdk}. */
  private String javaHome(Path jdk) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", "source \"$0\"; echo \"$JAVA_HOME\"", SCRIPT.toString());
    pb.environment().put("JAVA_HOME", jdk.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), err);
    return out.strip();
  }

  /** The JDK the script falls back to (Temurin 25), as the script names it. */
  private static String fallback() throws IOException {
    for (String line : Files.readAllLines(SCRIPT)) {
      if (line.startsWith("kiln_temurin=")) {
        return line.substring("kiln_temurin=".length());
      }
    }
    throw new AssertionError("no kiln_temurin= in " + SCRIPT);
  }
}
