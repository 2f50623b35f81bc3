package dev.kiln.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/lib/aot.sh}, the JVM ahead-of-time cache {@code scripts/kiln build} keeps: driven
 * from bash exactly as the launcher does, around a real JVM (this test's, JDK 25 or newer) running a
 * small program from a jar.
 */
class AotCacheScriptTest {
  private static final Path SCRIPT = Path.of("..", "scripts", "lib", "aot.sh").toAbsolutePath().normalize();

  @TempDir Path dir;
  private Path jar;
  private Path cacheDir;
  /** kiln_aot_prepare's fourth argument: "use" as the launcher passes it for serve, eval and route. */
  private String prepareMode = "";

  @BeforeEach
  void program() throws IOException {
    assumeTrue(Runtime.version().feature() >= 25, "the AOT cache needs JDK 25; this JVM is " + Runtime.version());
    Path src = Files.createDirectories(dir.resolve("src"));
    Files.writeString(src.resolve("Hello.java"),
        "public class Hello { public static void main(String[] a) { System.out.println(\"hello \" + java.util.List.of(a.length)); } }");
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertEquals(0, javac.run(null, null, null, "-d", src.toString(), src.resolve("Hello.java").toString()));
    jar = dir.resolve("hello.jar");
    Manifest m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), m)) {
      out.putNextEntry(new JarEntry("Hello.class"));
      out.write(Files.readAllBytes(src.resolve("Hello.class")));
      out.closeEntry();
    }
    cacheDir = dir.resolve("cache").resolve("aot");
  }

  @Test
  void theFirstRunTrainsACacheThatTheNextRunMapsAndStdoutKeepsOnlyTheProgramsOutput() throws Exception {
    Run first = run(jar.toString(), "", 60);
    assertEquals(0, first.code, first.err);
    assertTrue(first.args.contains("-XX:AOTMode=record"), first.args);
    assertEquals("hello [0]\n", first.out, "the JVM's AOT messages must not reach stdout");
    List<Path> caches = caches();
    assertEquals(1, caches.size(), caches.toString());
    assertTrue(caches.get(0).getFileName().toString().matches("build-[0-9a-f]{16}\\.aot"), caches.toString());
    assertTrue(first.err.contains("wrote a JVM AOT cache"), first.err);
    assertFalse(first.err.contains("[warning]"), "the AOT code's warnings are not the user's business: " + first.err);

    // AOTMode=on makes a cache the JVM cannot map a fatal error: exit 0 says it was used.
    Run second = run(jar.toString(), "-XX:AOTMode=on", 60);
    assertEquals(0, second.code, second.err);
    assertTrue(second.args.contains("-XX:AOTCache=" + caches.get(0)), second.args);
    assertEquals("hello [0]\n", second.out);
    assertEquals(caches, caches());
  }

  /**
   * Issue 47.4: serve (whose run has no clean end to train on) only maps the CLI's cache that a search
   * trained; without one it runs as before and writes nothing.
   */
  @Test
  void aUseOnlyRunNeverTrainsButMapsTheCacheATrainingRunWrote() throws Exception {
    prepareMode = "use";
    Run untrained = run(jar.toString(), "", 60);
    assertEquals(0, untrained.code, untrained.err);
    assertEquals("", untrained.args.strip(), "no cache: no recording either");
    assertEquals(List.of(), allFiles());
    prepareMode = "";
    assertEquals(0, run(jar.toString(), "", 60).code);
    prepareMode = "use";
    Run used = run(jar.toString(), "-XX:AOTMode=on", 60);
    assertEquals(0, used.code, used.err);
    assertTrue(used.args.contains("-XX:AOTCache=" + caches().get(0)), used.args);
    assertEquals("hello [0]\n", used.out);
  }

  @Test
  void aCorruptOrTruncatedCacheIsSkippedAndTheProgramStillRuns() throws Exception {
    assertEquals(0, run(jar.toString(), "", 60).code);
    Path cache = caches().get(0);
    byte[] whole = Files.readAllBytes(cache);
    Files.write(cache, Arrays.copyOf(whole, whole.length / 3));
    Run truncated = run(jar.toString(), "", 60);
    assertEquals(0, truncated.code, truncated.err);
    assertEquals("hello [0]\n", truncated.out, "a truncated cache must neither stop the run nor reach stdout");
    Files.write(cache, "not an AOT cache at all".getBytes(StandardCharsets.UTF_8));
    Run garbage = run(jar.toString(), "", 60);
    assertEquals(0, garbage.code, garbage.err);
    assertEquals("hello [0]\n", garbage.out);
  }

  @Test
  void aFailedOrShortRunLeavesNoCacheAndNoPartFiles() throws Exception {
    Run failed = run(jar.toString(), "", 60, 3);
    assertEquals(3, failed.code);
    assertEquals(List.of(), allFiles(), "a failed build must not become the profile");
    Run shortRun = run(jar.toString(), "", 2);
    assertEquals(0, shortRun.code, shortRun.err);
    assertEquals(List.of(), allFiles(), "a 2-s run (a --help) must not become the profile");
  }

  @Test
  void aRebuiltJarTrainsANewCacheAndTheOldOneIsRemoved() throws Exception {
    assertEquals(0, run(jar.toString(), "", 60).code);
    List<Path> before = caches();
    Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 5_000));
    Run retrain = run(jar.toString(), "", 60);
    assertEquals(0, retrain.code, retrain.err);
    assertTrue(retrain.args.contains("-XX:AOTMode=record"), "a changed jar must not map the old cache: " + retrain.args);
    List<Path> after = caches();
    assertEquals(1, after.size(), after.toString());
    assertNotEquals(before, after);
  }

  @Test
  void offADirectoryOnTheClassPathOrAMissingJarMeansNoCacheAtAll() throws Exception {
    Run off = run(jar.toString(), "", 60, 0, "KILN_AOT=off");
    assertEquals("", off.args.strip());
    Run withDir = run(jar + ":" + dir.resolve("src"), "", 60);
    assertEquals("", withDir.args.strip(), "the JVM cannot dump a class path with a non-empty directory");
    Run missing = run(jar + ":" + dir.resolve("gone.jar"), "", 60);
    assertEquals("", missing.args.strip());
    assertEquals(List.of(), allFiles());
  }

  private record Run(int code, String args, String out, String err) {}

  private Run run(String classPath, String extraJvmOptions, int elapsedSeconds) throws Exception {
    return run(classPath, extraJvmOptions, elapsedSeconds, 0);
  }

  /**
   * Sources the script, prepares, runs {@code Hello} (then exits with {@code exit} when it is not 0,
   * as a failed build would), finishes with the given elapsed seconds; the prepared options go to
   * stderr between markers.
   */
  private Run run(String classPath, String extraJvmOptions, int elapsedSeconds, int exit, String... env)
      throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String script = String.join("\n",
        "set -euo pipefail",
        "source '" + SCRIPT + "'",
        "kiln_aot_prepare build \"$CP\" '" + cacheDir + "' " + prepareMode,
        "echo \"ARGS[${KILN_AOT_ARGS[*]:-}]ARGS\" >&2",
        "code=0",
        "'" + java + "' " + extraJvmOptions + " \"${KILN_AOT_ARGS[@]}\" -cp \"$CP\" Hello || code=$?",
        "[[ $code == 0 ]] && code=" + exit,
        "kiln_aot_finish \"$code\" " + elapsedSeconds,
        "exit \"$code\"");
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", script);
    pb.environment().put("CP", classPath);
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().remove("KILN_AOT");
    for (String e : env) {
      pb.environment().put(e.substring(0, e.indexOf('=')), e.substring(e.indexOf('=') + 1));
    }
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    int code = p.waitFor();
    String errText = Files.readString(err, StandardCharsets.UTF_8);
    int a = errText.indexOf("ARGS[");
    int b = errText.indexOf("]ARGS");
    String args = a >= 0 && b > a ? errText.substring(a + 5, b) : "";
    return new Run(code, args, Files.readString(out, StandardCharsets.UTF_8), errText);
  }

  private List<Path> caches() throws IOException {
    return allFiles().stream().filter(f -> f.getFileName().toString().endsWith(".aot")).toList();
  }

  private List<Path> allFiles() throws IOException {
    if (!Files.isDirectory(cacheDir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(cacheDir)) {
      return s.sorted().toList();
    }
  }
}
