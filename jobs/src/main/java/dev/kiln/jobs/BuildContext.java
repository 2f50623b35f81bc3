package dev.kiln.jobs;

import dev.kiln.config.BuildConfig;
import dev.kiln.embed.ModelFiles;
import dev.kiln.embed.ModelSpec;
import dev.kiln.model.ContentKey;
import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.snapshot.SnapshotLayout;
import java.util.List;
import org.apache.flink.core.fs.Path;

/**
 * One build's settings, resolved once in the client before anything is planned, logged or
 * fingerprinted: the configuration validated and its automatic chunk size replaced by the model's
 * ({@link ModelChunking}), the model and its fingerprint, what every content key and document
 * fingerprint starts with, and the snapshots root as a {@link SnapshotsTarget}. The planners, the
 * manifest draft and the job's wiring all read this, so what the log shows is what the build used.
 */
public final class BuildContext {
  private final BuildConfig config;
  private final ModelSpec model;
  private final String modelFingerprint;
  private final SnapshotsTarget target;

  private BuildContext(BuildConfig config, ModelSpec model, String modelFingerprint, SnapshotsTarget target) {
    this.config = config;
    this.model = model;
    this.modelFingerprint = modelFingerprint;
    this.target = target;
  }

  /** Validates {@code config} and resolves what depends on the model (it is changed in place: the chunk size). */
  public static BuildContext resolve(BuildConfig config) {
    config.validate();
    ModelSpec model = ModelChunking.resolve(config);
    return new BuildContext(config, model, ModelFiles.fingerprint(model),
        SnapshotsTarget.of(config.snapshots, config.filesystem));
  }

  public BuildConfig config() {
    return config;
  }

  public ModelSpec model() {
    return model;
  }

  /** The model's fingerprint: recorded in the manifest and on every stored vector. */
  public String modelFingerprint() {
    return modelFingerprint;
  }

  /** The snapshots root: where the job writes, the store the protocol runs over. */
  public SnapshotsTarget target() {
    return target;
  }

  /** The effective configuration, one line a setting, as the build logs it at start. */
  public List<String> describe() {
    return config.describe();
  }

  /** What goes into every content key besides the chunk: the chunker settings and tokenizer. */
  public String keySettings() {
    return ContentKey.settingsFingerprint(config.chunker, model.source());
  }

  /**
   * What every document fingerprint starts with: the settings that shape a document's chunks, vectors
   * and index fields, so that no document built under other settings ever counts as unchanged.
   */
  public String documentSettings() {
    return String.join("|", keySettings(), modelFingerprint, config.index.analyzer,
        config.index.rangeTypes().toString());
  }

  /** The chunker settings' fingerprint as a manifest records it (the tokenizer named by the model's source). */
  public String chunkerFingerprint() {
    return config.chunker.fingerprint(model.source());
  }

  /**
   * Where this build's quarantined records go: {@code <ingest.quarantine-dir>/<snapshot id>/},
   * by default under the snapshots root but outside the snapshot, so it survives a failed build.
   */
  public String quarantineDir(String snapshotId) {
    String base = config.ingest.quarantineDir;
    if (base == null || base.isBlank()) {
      base = target.uri(SnapshotLayout.QUARANTINE);
    }
    return new Path(base, snapshotId).toString();
  }
}
