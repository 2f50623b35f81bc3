package dev.kiln.vectors;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the embed stage may take vectors from instead of running the model: the part files of an
 * earlier snapshot made with the same model fingerprint, whose presence and sizes the client checked
 * against that snapshot's manifest, and the closed parts that failed or killed builds left in the same
 * root (resume). Each part carries the SHA-256 it must have; the embed subtask that reads a part checks
 * it first ({@link ReusePart}). {@link #NONE} reuses nothing.
 *
 * @param snapshotId the snapshot the vectors come from (null when only resumed parts are offered)
 * @param files its part files (absolute paths or remote URIs)
 * @param resumed parts left by unpublished builds; one made with another model is skipped, not an error
 * @param resumedFrom the unpublished snapshots those parts belong to
 */
public record ReuseSource(String snapshotId, List<ReusePart> files, List<ReusePart> resumed, List<String> resumedFrom)
    implements Serializable {
  public static final ReuseSource NONE = new ReuseSource(null, List.of(), List.of(), List.of());

  public ReuseSource {
    files = new ArrayList<>(files);
    resumed = new ArrayList<>(resumed);
    resumedFrom = new ArrayList<>(resumedFrom);
  }

  public ReuseSource(String snapshotId, List<ReusePart> files) {
    this(snapshotId, files, List.of(), List.of());
  }

  /** The same source with parts of unpublished builds added. */
  public ReuseSource withResumed(List<ReusePart> parts, List<String> from) {
    return new ReuseSource(snapshotId, files, parts, from);
  }

  public boolean isEmpty() {
    return files.isEmpty() && resumed.isEmpty();
  }
}
