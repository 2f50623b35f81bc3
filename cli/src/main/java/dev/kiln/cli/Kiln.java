package dev.kiln.cli;

import dev.kiln.config.ConfigException;
import dev.kiln.publish.BuildRunningException;
import dev.kiln.search.OpenWarmUp;
import dev.kiln.snapshot.SnapshotException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code scripts/kiln}: one command line for building, searching and evaluating snapshots.
 *
 * <p>This module is the only one that knows picocli, and it knows no Flink: {@code search},
 * {@code eval}, {@code serve} and {@code snapshots} run on the searcher and the storage alone;
 * {@code build} and {@code regress} hand their checked configuration to the {@link BuildBackend} that
 * module {@code jobs} provides, which the launcher puts on the classpath for those two commands only.
 *
 * <p>A command line that names its command first gets a parser of that command alone: picocli reads
 * the annotations of every command it is given, and reading the six others' (and loading their
 * classes: the server's, the router's) was a tenth of a cold {@code kiln search}'s start (issue 47.4).
 * Anything else ({@code kiln --help}, a misspelt command) gets all of them, for the listing and the
 * suggestions.
 */
@Command(
    name = "kiln",
    mixinStandardHelpOptions = true,
    version = "kiln 0.1.0",
    description = "Bakes hybrid (HNSW + BM25) search snapshots offline with Flink and searches them.")
public final class Kiln implements Runnable {
  /** The commands by name, in the order {@code kiln --help} lists them (each class's {@code @Command} name). */
  static final Map<String, Class<?>> COMMANDS = commands();

  /** Success. */
  public static final int OK = 0;
  /** A failure while doing the work. */
  public static final int FAILURE = 1;
  /** Bad usage or configuration: the message says what to fix. */
  public static final int USAGE = 2;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * Commands whose first work is opening a snapshot for searching ({@code -Dkiln.open.warm-up=false} in
   * KILN_JAVA_OPTS turns the warm-up off: the benchmark's A/B of it).
   */
  private static final Set<String> OPENS_SNAPSHOTS = Set.of("search", "serve", "eval");

  public static void main(String[] args) {
    if (args.length > 0 && OPENS_SNAPSHOTS.contains(args[0])
        && Boolean.parseBoolean(System.getProperty("kiln.open.warm-up", "true"))) {
      // Overlaps the command line's parsing (a tenth of a second of picocli) with what the open does first.
      OpenWarmUp.start();
    }
    System.exit(execute(args));
  }

  /** Runs a command line and returns its exit code (0 ok, 1 failure, 2 usage or configuration). */
  public static int execute(String... args) {
    CommandLine cli = commandLine(args);
    cli.setExitCodeExceptionMapper(e -> e instanceof ConfigException || e instanceof CommandLine.ParameterException
        ? USAGE : FAILURE);
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
      Throwable root = e;
      if (root instanceof ConfigException) {
        cmd.getErr().println("kiln: configuration error: " + SettingFlags.message(root));
        return USAGE;
      }
      if (root instanceof BuildRunningException) {
        // Not a failure of this build: it did not start, and says why and what to do.
        cmd.getErr().println("kiln: " + root.getMessage());
        return USAGE;
      }
      if (root instanceof SnapshotException) {
        cmd.getErr().println("kiln: " + root.getMessage());
        return FAILURE;
      }
      cmd.getErr().println("kiln: " + cmd.getCommandName() + " failed: " + describe(root));
      if (Boolean.getBoolean("kiln.debug")) {
        root.printStackTrace(cmd.getErr());
      } else {
        cmd.getErr().println("(run with KILN_DEBUG=1 for the stack trace)");
      }
      return FAILURE;
    });
    return cli.execute(args);
  }

  /**
   * The parser for {@code args}: of the command they name first, or of every command (no arguments
   * gives every command: {@code --help}'s tree).
   */
  static CommandLine commandLine(String... args) {
    CommandLine cli = new CommandLine(new Kiln());
    Class<?> named = args.length > 0 ? COMMANDS.get(args[0]) : null;
    for (Map.Entry<String, Class<?>> command : COMMANDS.entrySet()) {
      if (named == null || named == command.getValue()) {
        cli.addSubcommand(command.getKey(), command.getValue());
      }
    }
    return cli;
  }

  private static Map<String, Class<?>> commands() {
    Map<String, Class<?>> m = new LinkedHashMap<>();
    m.put("build", BuildCommand.class);
    m.put("search", SearchCommand.class);
    m.put("eval", EvalCommand.class);
    m.put("serve", ServeCommand.class);
    m.put("route", RouteCommand.class);
    m.put("snapshots", SnapshotsCommand.class);
    m.put("regress", RegressCommand.class);
    return m;
  }

  /** The innermost useful message: Flink wraps task failures several levels deep. */
  public static String describe(Throwable t) {
    Throwable cur = t;
    String msg = t.toString();
    while (cur != null) {
      if (cur instanceof ConfigException || cur instanceof SnapshotException || cur.getCause() == null) {
        msg = cur.getClass().getSimpleName() + ": " + SettingFlags.message(cur);
      }
      cur = cur.getCause();
    }
    return msg;
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "missing command: build, search, eval, serve, snapshots or regress");
  }
}
