package dev.kiln.jobs;

import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.vectors.RollingParts;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resume: the closed stored-vector parts that unpublished builds (failed, killed, still running) left
 * under the root, offered to the embed stage besides the published snapshot's. A part counts only with
 * the checksum record its writer wrote after closing it, and only if its bytes still match it (a
 * part that does not is skipped with a warning and counted in the log); parts made with another model
 * are skipped by the embed subtasks, which read each part's model fingerprint.
 */
final class ResumedParts {
  private static final Logger LOG = LoggerFactory.getLogger(ResumedParts.class);

  private ResumedParts() {}

  static EmbeddingReuse.Plan add(EmbeddingReuse.Plan plan, SnapshotStore store, String remoteRoot) {
    List<String> parts = new ArrayList<>();
    List<String> from = new ArrayList<>();
    int refused = 0;
    SnapshotStorage storage = store.storage();
    for (String id : store.allIds()) {
      if (store.hasManifest(id)) {
        continue;
      }
      String dir = SnapshotLayout.snapshotKey(id) + SnapshotLayout.EMBEDDINGS;
      try {
        List<String> names = storage.list(dir);
        int before = parts.size();
        for (String name : names) {
          if (!name.endsWith(".parquet") || !names.contains(name + RollingParts.CHECKSUM_SUFFIX)) {
            continue;
          }
          String key = dir + "/" + name;
          String recorded = new String(storage.read(key + RollingParts.CHECKSUM_SUFFIX, 128).orElseThrow(),
              StandardCharsets.US_ASCII).trim();
          String actual;
          try (InputStream in = storage.open(key)) {
            actual = Checksums.sha256(in);
          }
          if (!recorded.equals(actual)) {
            refused++;
            LOG.warn("not resuming from {}: its bytes do not match the checksum recorded when it was closed", key);
            continue;
          }
          parts.add(remoteRoot != null ? new org.apache.flink.core.fs.Path(remoteRoot, key).toString()
              : store.layout().root().resolve(key).toString());
        }
        if (parts.size() > before) {
          from.add(id);
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("not resuming from unpublished snapshot {}: {}", id, e.getMessage());
      }
    }
    if (parts.isEmpty()) {
      return plan;
    }
    LOG.info("resume: {} stored-vector part(s) of unpublished build(s) {} offered for reuse ({} refused)",
        parts.size(), from, refused);
    return new EmbeddingReuse.Plan(plan.source().withResumed(parts, from),
        plan.reason() + "; resuming " + parts.size() + " part(s) of unpublished " + from);
  }
}
