package dev.kiln.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code kiln snapshots list|show|verify|publish|rollback|gc|du}: inspect and move between snapshots.
 * Each subcommand is a class of its own ({@code Snapshots*Command}); the options they share are in
 * {@link SnapshotsRoot}.
 */
@Command(name = "snapshots", mixinStandardHelpOptions = true,
    description = "List, verify, publish, roll back and garbage-collect snapshots, and show what they occupy.",
    subcommands = {SnapshotsListCommand.class, SnapshotsShowCommand.class, SnapshotsVerifyCommand.class,
        SnapshotsPublishCommand.class, SnapshotsRollbackCommand.class, SnapshotsGcCommand.class,
        SnapshotsDuCommand.class})
final class SnapshotsCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "missing subcommand: list, show ID, verify [ID], publish ID, rollback [ID], gc --keep N or du");
  }
}
