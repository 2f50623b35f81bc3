package dev.kiln.operators;

import dev.kiln.operators.fs.SnapshotsTarget;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
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
   * @param target the snapshots root the writer writes into
   * @param dir the directory under the snapshot: {@code null} for the shards themselves, else a
   *     subdirectory holding a part per shard ({@code parents})
   */
  public static void clean(SnapshotsTarget target, String snapshotId, String dir, Collection<Integer> shards)
      throws IOException {
    for (int shard : shards) {
      String key = SnapshotLayout.snapshotKey(snapshotId) + (dir == null ? "" : dir + "/")
          + SnapshotLayout.shardDirName(shard);
      Path p = new Path(target.uri(key));
      FileSystem fs = p.getFileSystem();
      if (fs.exists(p)) {
        fs.delete(p, true);
      }
    }
  }

  /** The shards writer {@code subtask} of {@code writers} owns: {@code shard mod writers == subtask}. */
  public static List<Integer> owned(int subtask, int writers, int shards) {
    List<Integer> out = new ArrayList<>();
    for (int s = subtask; s < shards; s += writers) {
      out.add(s);
    }
    return out;
  }
}
