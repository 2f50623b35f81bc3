package dev.kiln.jobs;

/**
 * The job was submitted detached ({@code flink run -d}): the cluster builds the snapshot, but this
 * client, which verifies and publishes it after the job, has no result to wait for. The snapshot is left
 * as it is, marked STAGING (removing it now would pull the directory from under the running job);
 * {@code kiln snapshots gc} removes it once it is stale. Publishing moves into the job later; until
 * then a build that should publish is submitted attached.
 */
public final class DetachedSubmission extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DetachedSubmission(String snapshotId, String jobId) {
    super("submitted detached (flink run -d) as Flink job " + jobId + ": the cluster builds snapshot " + snapshotId
        + " but nothing verifies or publishes it, since that runs in this client after the job; submit without -d"
        + " to publish (the unpublished snapshot keeps its STAGING marker; 'kiln snapshots gc' removes it once stale)");
  }
}
