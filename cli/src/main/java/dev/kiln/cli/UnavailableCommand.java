package dev.kiln.cli;

import dev.kiln.config.ConfigException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * Stands in for a command whose module is not on the classpath ({@code build} and {@code regress}
 * without the build job): a usage error saying how to run it, rather than "unknown command".
 */
@Command(name = "unavailable", hidden = true)
final class UnavailableCommand implements Callable<Integer> {
  private final String name;

  @Unmatched List<String> ignored;

  UnavailableCommand(String name) {
    this.name = name;
  }

  @Override
  public Integer call() {
    throw new ConfigException("'kiln " + name + "' needs the build job (module kiln-jobs, with Flink) on the "
        + "classpath, and this one has only the searcher: run it through scripts/kiln, which adds it for "
        + String.join(" and ", Kiln.BUILD_COMMANDS));
  }
}
