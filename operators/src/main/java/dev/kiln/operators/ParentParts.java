package dev.kiln.operators;

import dev.kiln.publish.ManifestFiles;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.common.functions.RuntimeContext;

/**
 * The files of a docstore writer's parts, described where they were written, named as the manifest's
 * {@code docstore.files} names them ({@code shard-N/FILE}, relative to {@code parents/}).
 */
final class ParentParts {
  private ParentParts() {}

  static List<Manifest.FileEntry> describe(SnapshotLayout layout, String snapshotId, Collection<Integer> shards)
      throws IOException {
    List<Manifest.FileEntry> files = new ArrayList<>();
    for (int shard : shards) {
      String prefix = SnapshotLayout.shardDirName(shard) + "/";
      for (Manifest.FileEntry f : ManifestFiles.describe(layout.parentsDir(snapshotId, shard))) {
        files.add(f.renamed(prefix + f.name()));
      }
    }
    return files;
  }

  static StageReport report(String stage, RuntimeContext ctx,
      List<Manifest.FileEntry> files) {
    StageReport counters = StageReports.of(stage, ctx, JobCounters.PARENTS_STAGE);
    return new StageReport(stage, counters.subtask(), counters.counters(), null, null, files);
  }
}
