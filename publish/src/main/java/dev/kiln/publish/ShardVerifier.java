package dev.kiln.publish;

import dev.kiln.model.ShardResult;
import dev.kiln.snapshot.HeldRecord;
import dev.kiln.snapshot.SnapshotException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks the shard writers' reports before anything is published: exactly one result for every
 * expected shard, each with its files, and the total equal to the chunks the embed stage produced.
 */
public final class ShardVerifier {
  private ShardVerifier() {}

  /**
   * The committer's check, from the writers' reports alone (no shard is opened or downloaded: the
   * writers counted what they wrote and described its files): exactly one result for every expected
   * shard, each with its files described, and the total equal to the chunks the embed stage emitted.
   * The file set and sizes are then checked through the storage with the manifest
   * ({@code SnapshotVerifier}), which also reports any unlisted directory or file.
   *
   * @param expectedChunks chunks the job embedded (its own counter), or -1 to skip that check
   * @return the results ordered by shard
   */
  public static List<ShardResult> verifyReported(String snapshotId, int shards, List<ShardResult> results,
      long expectedChunks) {
    Map<Integer, ShardResult> byShard = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    for (ShardResult r : results) {
      if (r.shard() < 0 || r.shard() >= shards) {
        problems.add("unexpected shard " + r.shard() + " (expected 0.." + (shards - 1) + ")");
      } else if (byShard.putIfAbsent(r.shard(), r) != null) {
        problems.add("shard " + r.shard() + " was reported twice (two attempts' output)");
      } else if (r.files().isEmpty()) {
        problems.add("shard " + r.shard() + " was reported without its files");
      }
    }
    for (int s = 0; s < shards; s++) {
      if (!byShard.containsKey(s)) {
        problems.add("shard " + s + " is missing");
      }
    }
    if (!problems.isEmpty()) {
      throw new SnapshotException("snapshot " + snapshotId + " will not be published: " + String.join("; ", problems));
    }
    long total = byShard.values().stream().mapToLong(ShardResult::chunks).sum();
    if (expectedChunks >= 0 && total != expectedChunks) {
      throw new GateFailedException(HeldRecord.VERIFIER, "snapshot " + snapshotId
          + " will not be published: shards hold " + total + " chunks but the job embedded " + expectedChunks,
          new ArrayList<>(byShard.values()));
    }
    return new ArrayList<>(byShard.values());
  }
}
