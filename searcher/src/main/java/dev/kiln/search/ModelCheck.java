package dev.kiln.search;

import dev.kiln.embed.ModelFiles;
import dev.kiln.embed.ModelSpec;
import dev.kiln.snapshot.Manifest;
import java.util.Optional;

/**
 * Whether a model can embed queries for a snapshot: same dimension, and the same fingerprint when the
 * manifest records one. Query vectors of another model land in a different space: search would
 * return confident nonsense, so a mismatch is always an error.
 */
public final class ModelCheck {
  private ModelCheck() {}

  /** What is wrong, or empty when {@code spec} is the snapshot's model. */
  public static Optional<String> mismatch(Manifest manifest, ModelSpec spec) {
    Manifest.ModelInfo m = manifest.model();
    if (spec.dimension() != m.dimension()) {
      return Optional.of("snapshot " + manifest.id() + " holds " + m.dimension() + "-d vectors of model "
          + m.name() + ", but model " + spec.name() + " makes " + spec.dimension() + "-d vectors");
    }
    if (m.fingerprint() != null) {
      String fp = ModelFiles.fingerprint(spec);
      if (!fp.equals(m.fingerprint())) {
        return Optional.of("snapshot " + manifest.id() + " was embedded with model " + m.name() + " ("
            + m.fingerprint() + "), but model " + spec.name() + " here has fingerprint " + fp
            + ": query vectors would not match the stored ones");
      }
    }
    return Optional.empty();
  }
}
