package dev.kiln.jobs;

import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import dev.kiln.snapshot.SnapshotStore;
import dev.kiln.vectors.ReusePart;
import dev.kiln.vectors.RollingParts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resume: the closed stored-vector parts that unpublished builds (failed, killed, still running) left
 * under the root, offered to the embed stage besides the published snapshot's. A part counts only with
 * the checksum record its writer wrote after closing it. The embed subtask that reads a part checks its
 * bytes against that record and skips, with a warning, one that does not match or that another model
 * made ({@code ReusedVectors}); the client hashes nothing.
 */
final class ResumedParts {
  private static final Logger LOG = LoggerFactory.getLogger(ResumedParts.class);

  private ResumedParts() {}

  static EmbeddingReuse.Plan add(EmbeddingReuse.Plan plan, SnapshotsTarget target, SnapshotStore store) {
    List<ReusePart> parts = new ArrayList<>();
    List<String> from = new ArrayList<>();
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
          // The embed subtask that reads the part checks its bytes against the record (ReusedVectors).
          parts.add(new ReusePart(target.dir(key), recorded));
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
    LOG.info("resume: {} stored-vector part(s) of unpublished build(s) {} offered for reuse", parts.size(), from);
    return new EmbeddingReuse.Plan(plan.source().withResumed(parts, from),
        plan.reason() + "; resuming " + parts.size() + " part(s) of unpublished " + from);
  }
}
