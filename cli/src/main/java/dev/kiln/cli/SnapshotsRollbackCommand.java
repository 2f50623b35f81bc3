package dev.kiln.cli;

import dev.kiln.publish.SnapshotPublisher;
import dev.kiln.snapshot.SnapshotStore;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kiln snapshots rollback}: points {@code CURRENT} back at an earlier snapshot. */
@Command(name = "rollback", mixinStandardHelpOptions = true,
    description = "Point CURRENT back at the snapshot before it (its parent), or at ID.")
final class SnapshotsRollbackCommand extends SnapshotsRoot implements Callable<Integer> {
  @Parameters(paramLabel = "ID", arity = "0..1")
  String id;

  @Override
  public Integer call() {
    SnapshotStore store = store();
    String before = store.currentId();
    String now = new SnapshotPublisher(store).rollback(id == null ? null : checkId(id, "ID"));
    out().println("rolled back to " + now + " (was " + before + ")");
    return Kiln.OK;
  }
}
