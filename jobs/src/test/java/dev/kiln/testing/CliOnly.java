package dev.kiln.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code kiln} in its own JVM on the CLI module's classpath alone (what {@code scripts/kiln} gives
 * search, eval, serve and snapshots): {@code cli/target/kiln-cli-*.jar} and the
 * {@code cli/target/classpath.txt} its build writes. The reactor packages the CLI module before
 * this module's integration tests run.
 */
public final class CliOnly {
  private static final Path TARGET = Path.of("..", "cli", "target");

  private CliOnly() {}

  /** What it printed and how it ended. */
  public record Result(int exitCode, String out, String err) {}

  /** The classpath entries: the CLI jar first, then its runtime dependencies. */
  public static List<String> classpath() throws IOException {
    Path file = TARGET.resolve("classpath.txt");
    if (!Files.isRegularFile(file)) {
      throw new IllegalStateException(file.toAbsolutePath() + " is missing: package the cli module first (mvn verify "
          + "from the root builds it before these tests)");
    }
    List<String> entries = new ArrayList<>();
    try (Stream<Path> jars = Files.list(TARGET)) {
      entries.add(jars.filter(p -> p.getFileName().toString().matches("kiln-cli-.*\\.jar"))
          .findFirst().orElseThrow(() -> new IllegalStateException("no kiln-cli jar in " + TARGET.toAbsolutePath()))
          .toAbsolutePath().toString());
    }
    for (String e : Files.readString(file).strip().split(File.pathSeparator)) {
      if (!e.isBlank()) {
        entries.add(e);
      }
    }
    return entries;
  }

  /** Runs {@code kiln ARGS} with {@code env} added to this process's environment. */
  public static Result run(Map<String, String> env, String... args) throws Exception {
    List<String> cmd = KilnProcess.javaCommand("dev.kiln.cli.Kiln", List.of(),
        String.join(File.pathSeparator, classpath()));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile("kiln-cli-out", ".txt");
    Path err = Files.createTempFile("kiln-cli-err", ".txt");
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
      pb.environment().putAll(env);
      Process p = pb.start();
      if (!p.waitFor(180, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor();
        throw new AssertionError("kiln " + String.join(" ", args) + " did not finish in 180 s:\n"
            + Files.readString(err, StandardCharsets.UTF_8));
      }
      return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
