package dev.kiln.vectors;

import java.io.Serializable;
import java.util.List;

/**
 * Where the embed stage may take vectors from instead of running the model: the part files of an
 * earlier snapshot made with the same model fingerprint, already checked against that snapshot's
 * manifest by the client. {@link #NONE} reuses nothing.
 *
 * @param snapshotId the snapshot the vectors come from
 * @param files absolute paths of its part files
 */
public record ReuseSource(String snapshotId, List<String> files) implements Serializable {
  public static final ReuseSource NONE = new ReuseSource(null, List.of());

  public boolean isEmpty() {
    return files.isEmpty();
  }
}
