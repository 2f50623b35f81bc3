package dev.kiln.operators;

import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.util.Collection;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * What a writer subtask removes before it writes, so that a retried attempt produces exactly what a
 * first attempt would: the directories of the shards it owns (local root: its files; remote root: the
 * objects an earlier attempt uploaded, which a new upload would not all overwrite — Lucene names
 * segments per attempt — and which the committer would then find unlisted). A first attempt finds
 * nothing to remove. Writers own their shards exclusively ({@code shard mod writers}), so no other
 * subtask's output is touched.
 */
public final class AttemptStaging {
  private AttemptStaging() {}

  /**
   * @param root the snapshots root the writer writes into (a local path or a Flink URI)
   * @param dir the directory under the snapshot: {@code null} for the shards themselves, else a
   *     subdirectory holding a part per shard ({@code parents})
   */
  public static void clean(String root, String snapshotId, String dir, Collection<Integer> shards)
      throws IOException {
    for (int shard : shards) {
      String key = SnapshotLayout.SNAPSHOTS_DIR + "/" + snapshotId + "/" + (dir == null ? "" : dir + "/")
          + SnapshotLayout.shardDirName(shard);
      Path p = new Path(new Path(root).toUri().getScheme() == null ? new Path(java.nio.file.Path.of(root)
          .toAbsolutePath().toUri()) : new Path(root), key);
      FileSystem fs = p.getFileSystem();
      if (fs.exists(p)) {
        fs.delete(p, true);
      }
    }
  }

  /** The shards writer {@code subtask} of {@code writers} owns: {@code shard mod writers == subtask}. */
  public static java.util.List<Integer> owned(int subtask, int writers, int shards) {
    java.util.List<Integer> out = new java.util.ArrayList<>();
    for (int s = subtask; s < shards; s += writers) {
      out.add(s);
    }
    return out;
  }
}
