package dev.kiln.publish;

import dev.kiln.snapshot.SnapshotException;
import java.util.List;

/**
 * A build refused at its start because another build of the same root runs ({@link RunningBuilds}):
 * nothing was written. The CLI exits 2 with the message, which names the running build and the ways on.
 */
public final class BuildRunningException extends SnapshotException {
  private static final long serialVersionUID = 1L;
  private final transient List<RunningBuilds.Running> running;

  public BuildRunningException(String message, List<RunningBuilds.Running> running) {
    super(message);
    this.running = List.copyOf(running);
  }

  /** The builds found running. */
  public List<RunningBuilds.Running> running() {
    return running;
  }
}
