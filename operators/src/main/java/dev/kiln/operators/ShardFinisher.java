package dev.kiln.operators;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.model.ShardResult;
import dev.kiln.publish.ManifestFiles;
import dev.kiln.publish.RecallFloor;
import dev.kiln.publish.RecallProbe;
import dev.kiln.publish.ShardMerger;
import dev.kiln.snapshot.Manifest;
import dev.kiln.index.DocFingerprintFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * What a shard writer does with a closed shard before reporting it, on the disk where it was written:
 * merge its segments down to {@code index.max-segments}, write its document fingerprints
 * ({@link DocFingerprintFile}, for the incremental builds over it), run the recall probe (when on; an
 * incremental
 * shard probes only the segments it wrote) and list
 * every file with its size and SHA-256. Doing this in the writer, not after the job, is what lets
 * the committer publish a remote snapshot without downloading it, and spreads the hashing over the
 * writers instead of one client.
 */
final class ShardFinisher {
  private ShardFinisher() {}

  static ShardResult finish(int shard, ShardIndexWriter w, int subtask, IndexConfig config) throws IOException {
    return finish(shard, w, subtask, config, true, null, List.of());
  }

  /**
   * @param merge merge down to {@code index.max-segments}; an incremental build's shard keeps its
   *     base segments instead (only the segment counts are reported)
   * @param baseDir the base shard a continuing writer started from, or {@code null}
   * @param baseFiles that shard's files as the base manifest lists them: files still shared with it
   *     keep their recorded checksums instead of being hashed again ({@link ManifestFiles#describe})
   */
  static ShardResult finish(int shard, ShardIndexWriter w, int subtask, IndexConfig config, boolean merge,
      Path baseDir, List<Manifest.FileEntry> baseFiles) throws IOException {
    ShardMerger.MergeResult merged = merge ? ShardMerger.merge(shard, w.directory(), config)
        : ShardMerger.count(shard, w.directory());
    DocFingerprintFile.write(w.directory());
    // An incremental shard probes only the segments it wrote: the base's were probed with the base.
    Set<String> unchanged = !merge && baseDir != null ? RecallProbe.segmentNames(baseDir) : Set.of();
    double recall = config.recallProbeSamples > 0 ? RecallFloor.probe(w.directory(), shard, config, unchanged)
        : Double.NaN;
    return new ShardResult(shard, w.directory().toString(), w.chunks(), w.documents(), subtask,
        ManifestFiles.describe(w.directory(), baseDir, baseFiles), recall, merged.segmentsBefore(), merged.segmentsAfter());
  }
}
