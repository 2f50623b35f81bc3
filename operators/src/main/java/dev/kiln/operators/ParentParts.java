package dev.kiln.operators;

import dev.kiln.operators.fs.BaseShard;
import dev.kiln.publish.ManifestFiles;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
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

  /**
   * The files of one finished docstore part that continued {@code base} (or {@code null}: a new part),
   * named relative to the part: under a local root, base files it still hard-links are references to
   * their owner with the base's checksums; over a remote base, the base files it still shares
   * ({@code shared}) are, after the base files it read whole or merged away were checked against the
   * base manifest ({@link BaseShard.Remote#verifyRead}); the files it wrote are hashed.
   */
  static List<Manifest.FileEntry> describe(Path part, BaseShard base, Set<String> shared, String baseId,
      List<Manifest.FileEntry> baseFiles) throws IOException {
    return switch (base) {
      case null -> ManifestFiles.describe(part);
      case BaseShard.Local local -> ManifestFiles.describe(part, local.directory(), baseId, baseFiles);
      case BaseShard.Remote remote -> {
        remote.verifyRead(baseId, baseFiles, shared);
        yield ManifestFiles.describeOver(part, shared, baseId, baseFiles);
      }
    };
  }

  static StageReport report(String stage, RuntimeContext ctx,
      List<Manifest.FileEntry> files) {
    StageReport counters = StageReports.of(stage, ctx, JobCounters.PARENTS_STAGE);
    return new StageReport(stage, counters.subtask(), counters.counters(), null, null, files);
  }
}
