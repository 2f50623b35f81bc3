package dev.kiln.cli;

import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.snapshot.SnapshotStore;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln snapshots publish}: points {@code CURRENT} at a verified snapshot. */
@Command(name = "publish", mixinStandardHelpOptions = true,
    description = "Verify a complete snapshot and point CURRENT at it.")
final class SnapshotsPublishCommand extends SnapshotsRoot implements Callable<Integer> {
  @Parameters(paramLabel = "ID")
  String id;

  @Option(names = "--force", description = "publish a snapshot whose build failed a gate (recall floor, verifier);"
      + " every file is still verified against the manifest")
  boolean force;

  @Override
  public Integer call() {
    SnapshotStore store = store();
    String before = store.current().orElse(null);
    new SnapshotPublisher(store).publish(checkId(id, "ID"), before, false, force);
    out().println("published " + id + " (was " + (before == null ? "nothing" : before) + ")");
    return Kiln.OK;
  }
}
