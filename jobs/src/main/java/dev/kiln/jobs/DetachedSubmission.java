package dev.kiln.jobs;

/**
 * The job was submitted detached ({@code flink run -d}): the client has no result to wait for, and
 * needs none, since the job's own last stage verifies and publishes the snapshot
 * ({@link CommitOperator}). The client reports the job and the snapshot id and returns.
 */
public final class DetachedSubmission extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DetachedSubmission(String snapshotId, String jobId) {
    super("submitted detached (flink run -d) as Flink job " + jobId + ": the job builds, verifies and publishes"
        + " snapshot " + snapshotId + " by itself; follow it in the Flink web UI, then 'kiln snapshots show "
        + snapshotId + "'");
  }
}
