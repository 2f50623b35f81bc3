package dev.kiln.operators;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.DocFingerprintFile;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.index.SourcePositions;
import dev.kiln.index.store.BaseOverlayDirectory;
import dev.kiln.ingest.CorpusFileEnumerator;
import dev.kiln.model.ShardResult;
import dev.kiln.operators.fs.BaseShard;
import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.publish.ManifestFiles;
import dev.kiln.publish.RecallFloor;
import dev.kiln.publish.RecallProbe;
import dev.kiln.publish.ShardMerger;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;

/**
 * What a shard writer does with a closed shard before reporting it, on the disk where it was written:
 * merge its segments down to {@code index.max-segments}, write its document fingerprints
 * ({@link DocFingerprintFile}, for the incremental builds over it), count it in
 * {@code shards.without-positions} when a live chunk of it lacks a record position in a file of this
 * build's corpus listing ({@link SourcePositions#within}: what the next build needs to leave a file
 * unread; the next build reads the count from the manifest), run the recall probe (when on; an
 * incremental shard probes only the segments it wrote) and list every file with its size and SHA-256.
 * Doing this in the writer, not after the job, is what lets the committer publish a remote snapshot
 * without downloading it, and spreads the hashing over the writers instead of one client.
 */
final class ShardFinisher {
  private ShardFinisher() {}

  static ShardResult finish(int shard, ShardIndexWriter w, int subtask, IndexConfig config,
      Positions positions) throws IOException {
    return finish(shard, w, subtask, config, positions, true, null, null, List.of());
  }

  /**
   * The corpus files this build listed, and the counter of shards whose live chunks are not all
   * positioned in them.
   */
  record Positions(Set<String> listed, LongCounter without, boolean stale) {
    /** The listing the client wrote into snapshot {@code snapshotId} before the job (none: empty). */
    static Positions of(SnapshotsTarget target, String snapshotId, LongCounter without) throws IOException {
      String listing = target.dir(SnapshotLayout.snapshotKey(snapshotId) + SnapshotLayout.CORPUS_FILES);
      return new Positions(CorpusFileEnumerator.listedFiles(listing), without, false);
    }

    /** These positions for a shard known to keep stale ones (an unchanged record read from another file). */
    Positions stale(boolean stale) {
      return new Positions(listed, without, stale);
    }
  }

  /**
   * @param positions counts the shard when a live chunk of it lacks a position in a listed file
   * @param merge merge down to {@code index.max-segments}; an incremental build's shard keeps its
   *     base segments instead (only the segment counts are reported)
   * @param base the base shard a continuing writer started from (a local directory, or remote files
   *     read on demand), or {@code null}
   * @param baseId the base snapshot's id, or {@code null}
   * @param baseFiles that shard's files as the base manifest lists them: files still shared with it
   *     keep their recorded checksums instead of being hashed again ({@link ManifestFiles#describe})
   */
  static ShardResult finish(int shard, ShardIndexWriter w, int subtask, IndexConfig config,
      Positions positions, boolean merge, BaseShard base, String baseId, List<Manifest.FileEntry> baseFiles)
      throws IOException {
    // The finished shard as Lucene sees it: over a remote base, its new files and the base files it shares.
    try (Directory view = w.openFinished()) {
      ShardMerger.MergeResult merged = merge ? ShardMerger.merge(shard, view, config) : ShardMerger.count(shard, view);
      DocFingerprintFile.write(w.directory(), view);
      if (positions.stale() || !SourcePositions.within(view, positions.listed())) {
        positions.without().add(1);
      }
      // An incremental shard probes only the segments it wrote: the base's were probed with the base.
      Set<String> unchanged = !merge && base != null ? baseSegments(base) : Set.of();
      double recall = config.recallProbeSamples > 0 ? RecallFloor.probe(view, shard, config, unchanged)
          : Double.NaN;
      if (base instanceof BaseShard.Remote remote) {
        remote.verifyRead(baseId, baseFiles, ((BaseOverlayDirectory) view).baseFiles());
      }
      List<Manifest.FileEntry> files = switch (base) {
        case BaseShard.Remote remote -> ManifestFiles.describeOver(w.directory(),
            ((BaseOverlayDirectory) view).baseFiles(), baseId, baseFiles);
        case BaseShard.Local local -> ManifestFiles.describe(w.directory(), local.directory(), baseId, baseFiles);
        case null -> ManifestFiles.describe(w.directory());
      };
      return new ShardResult(shard, w.directory().toString(), w.chunks(), w.documents(), subtask, files, recall,
          merged.segmentsBefore(), merged.segmentsAfter());
    }
  }

  private static Set<String> baseSegments(BaseShard base) throws IOException {
    return switch (base) {
      case BaseShard.Local local -> RecallProbe.segmentNames(local.directory());
      case BaseShard.Remote remote -> {
        try (Directory d = new BaseOverlayDirectory(new ByteBuffersDirectory(), remote.files())) {
          yield RecallProbe.segmentNames(d);
        }
      }
    };
  }
}
