package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one measured step in a fresh JVM (same class path and JVM flags as this one, heap given), so
 * that each step's peak heap and resident set are its own: the build, the raw Lucene build and the
 * searcher never share a process. The child writes its result as JSON into a file.
 */
final class ChildRun {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ChildRun() {}

  static JsonNode run(String heap, Path log, Class<?> main, String... args) throws IOException, InterruptedException {
    return run(heap, List.of(), log, main, args);
  }

  /** As {@link #run(String, Path, Class, String...)}, with JVM options added to this JVM's. */
  static JsonNode run(String heap, List<String> jvmOptions, Path log, Class<?> main, String... args)
      throws IOException, InterruptedException {
    Path result = Files.createTempFile(log.getParent(), "result-", ".json");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!a.startsWith("-Xmx") && !a.startsWith("-Xms") && !a.startsWith("-agentlib")) {
        cmd.add(a);
      }
    }
    cmd.add("-Xmx" + heap);
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    cmd.add(result.toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    int code = p.waitFor();
    if (code != 0) {
      throw new IOException(main.getSimpleName() + " failed with exit code " + code + "; see " + log);
    }
    JsonNode node = JSON.readTree(result.toFile());
    Files.delete(result);
    return node;
  }

  /** For the child's main: writes {@code value} as the step's result. */
  static void write(String resultFile, Object value) throws IOException {
    JSON.writerWithDefaultPrettyPrinter().writeValue(Path.of(resultFile).toFile(), value);
  }
}
