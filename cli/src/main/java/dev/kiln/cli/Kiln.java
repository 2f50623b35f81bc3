package dev.kiln.cli;

import dev.kiln.config.ConfigException;
import dev.kiln.publish.BuildRunningException;
import dev.kiln.snapshot.SnapshotException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code scripts/kiln}: one command line for building, searching and evaluating snapshots.
 *
 * <p>This module is the only one that knows picocli, and it knows no Flink: {@code search},
 * {@code eval}, {@code serve} and {@code snapshots} run on the searcher and the storage alone;
 * {@code build} and {@code regress} hand their checked configuration to the {@link BuildBackend} that
 * module {@code jobs} provides, which the launcher puts on the classpath for those two commands only.
 */
@Command(
    name = "kiln",
    mixinStandardHelpOptions = true,
    version = "kiln 0.1.0",
    description = "Bakes hybrid (HNSW + BM25) search snapshots offline with Flink and searches them.",
    subcommands = {BuildCommand.class, SearchCommand.class, EvalCommand.class, ServeCommand.class, RouteCommand.class,
        SnapshotsCommand.class, RegressCommand.class})
public final class Kiln implements Runnable {
  /** Success. */
  public static final int OK = 0;
  /** A failure while doing the work. */
  public static final int FAILURE = 1;
  /** Bad usage or configuration: the message says what to fix. */
  public static final int USAGE = 2;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs a command line and returns its exit code (0 ok, 1 failure, 2 usage or configuration). */
  public static int execute(String... args) {
    CommandLine cli = new CommandLine(new Kiln());
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
