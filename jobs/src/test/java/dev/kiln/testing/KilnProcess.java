package dev.kiln.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code dev.kiln.cli.Kiln} JVM on the test classpath, with the test JVM's Kiln/DJL system
 * properties. Crash tests pause it at a named point ({@code kiln.test.pause-at}) and kill it with
 * SIGKILL ({@link Process#destroyForcibly()} on Unix), exactly as {@code kill -9} would.
 */
public final class KilnProcess {
  private static final List<String> INHERITED = List.of("ai.djl.offline", "OPT_OUT_TRACKING", "DJL_CACHE_DIR",
      "ENGINE_CACHE_DIR", "kiln.cache.dir", "kiln.home");

  private final Process process;
  private final Path log;
  private final Path marker;

  private KilnProcess(Process process, Path log, Path marker) {
    this.process = process;
    this.log = log;
    this.marker = marker;
  }

  /** The java command line for {@code mainClass} on this JVM's classpath. */
  public static List<String> javaCommand(String mainClass, List<String> extraJvmArgs) {
    return javaCommand(mainClass, extraJvmArgs, System.getProperty("java.class.path"));
  }

  /** The java command line for {@code mainClass} on {@code classpath}. */
  public static List<String> javaCommand(String mainClass, List<String> extraJvmArgs, String classpath) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--add-modules");
    cmd.add("jdk.incubator.vector");
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-Xmx1g");
    // Short-lived JVMs on tiny corpora: C1 only and the serial collector start fastest.
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-XX:+UseSerialGC");
    for (String p : INHERITED) {
      String v = System.getProperty(p);
      if (v != null) {
        cmd.add("-D" + p + "=" + v);
      }
    }
    cmd.addAll(extraJvmArgs);
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add(mainClass);
    return cmd;
  }

  /**
   * Starts {@code kiln ARGS}; with {@code pauseAt} it blocks at that point once reached.
   *
   * @param work directory for the log and the pause marker
   */
  public static KilnProcess start(Path work, String name, String pauseAt, List<String> args) throws IOException {
    return start(work, name, pauseAt, false, args);
  }

  /**
   * As {@link #start(Path, String, String, List)}; with {@code resumable} the paused process goes on
   * after {@link #resume()} instead of waiting to be killed.
   */
  public static KilnProcess start(Path work, String name, String pauseAt, boolean resumable, List<String> args)
      throws IOException {
    return start(work, name, pauseAt, resumable, List.of(), args);
  }

  /** As {@link #start(Path, String, String, boolean, List)} with extra JVM arguments ({@code -Dkey=value}). */
  public static KilnProcess start(Path work, String name, String pauseAt, boolean resumable, List<String> jvmArgs,
      List<String> args) throws IOException {
    Path marker = work.resolve(name + ".paused");
    Path log = work.resolve(name + ".log");
    List<String> jvm = new ArrayList<>(jvmArgs);
    if (pauseAt != null) {
      jvm.add("-Dkiln.test.pause-at=" + pauseAt);
      jvm.add("-Dkiln.test.pause-marker=" + marker);
      if (resumable) {
        jvm.add("-Dkiln.test.pause-resume=stdin");
      }
    }
    List<String> cmd = javaCommand("dev.kiln.cli.Kiln", jvm);
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new KilnProcess(p, log, marker);
  }

  /** Waits until the process has reached its pause point; fails if it exits or the deadline passes first. */
  public void awaitPause(long timeoutSeconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (!Files.exists(marker)) {
      if (process.waitFor(100, TimeUnit.MILLISECONDS)) {
        throw new AssertionError("kiln exited with " + process.exitValue() + " before its pause point:\n" + log());
      }
      if (System.nanoTime() > deadline) {
        process.destroyForcibly().waitFor();
        throw new AssertionError("kiln did not reach its pause point in " + timeoutSeconds + " s:\n" + log());
      }
    }
  }

  /** Lets a process started resumable go on from its pause point. */
  public void resume() throws IOException {
    process.getOutputStream().write('\n');
    process.getOutputStream().flush();
  }

  /** SIGKILL, then wait for the process to be gone. */
  public int kill9() throws InterruptedException {
    process.destroyForcibly();
    return process.waitFor();
  }

  public int waitFor(long timeoutSeconds) throws Exception {
    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
      throw new AssertionError("kiln did not finish in " + timeoutSeconds + " s:\n" + log());
    }
    return process.exitValue();
  }

  /** Whether the process has ended. */
  public boolean exited() {
    return !process.isAlive();
  }

  public long pid() {
    return process.pid();
  }

  public String log() throws IOException {
    return Files.exists(log) ? Files.readString(log) : "";
  }
}
