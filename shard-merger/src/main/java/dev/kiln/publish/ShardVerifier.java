package dev.kiln.publish;

import dev.kiln.model.ShardResult;
import dev.kiln.snapshot.SnapshotException;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.FSDirectory;

/**
 * Checks the shard writers' output before anything is published: exactly one result for every
 * expected shard, each shard index opens, its document count equals what its writer reported, and
 * the total equals the chunks the embed stage produced.
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
      throw new GateFailedException(dev.kiln.snapshot.HeldRecord.VERIFIER, "snapshot " + snapshotId
          + " will not be published: shards hold " + total + " chunks but the job embedded " + expectedChunks,
          new ArrayList<>(byShard.values()));
    }
    return new ArrayList<>(byShard.values());
  }

  /**
   * @param expectedChunks chunks the job embedded (its own counter), or -1 to skip that check
   * @return the results ordered by shard
   */
  public static List<ShardResult> verify(SnapshotLayout layout, String snapshotId, int shards,
      List<ShardResult> results, long expectedChunks) {
    Map<Integer, ShardResult> byShard = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    for (ShardResult r : results) {
      if (r.shard() < 0 || r.shard() >= shards) {
        problems.add("unexpected shard " + r.shard() + " (expected 0.." + (shards - 1) + ")");
      } else if (byShard.putIfAbsent(r.shard(), r) != null) {
        problems.add("shard " + r.shard() + " was reported twice (two attempts' output)");
      }
    }
    for (int s = 0; s < shards; s++) {
      if (!byShard.containsKey(s)) {
        problems.add("shard " + s + " is missing");
      }
    }
    // A shard directory nobody reported is output of an attempt the job did not count (or of a build
    // with a different shard count): never publish it silently.
    Path snapshotDir = layout.snapshotDir(snapshotId);
    if (java.nio.file.Files.isDirectory(snapshotDir)) {
      try (java.util.stream.Stream<Path> dirs = java.nio.file.Files.list(snapshotDir)) {
        for (Path d : dirs.sorted().toList()) {
          String name = d.getFileName().toString();
          if (name.startsWith("shard-") && java.nio.file.Files.isDirectory(d)) {
            boolean expected = false;
            for (int s = 0; s < shards; s++) {
              expected |= name.equals(SnapshotLayout.shardDirName(s));
            }
            if (!expected) {
              problems.add("unexpected shard directory " + name + " (this build has shards 0.." + (shards - 1) + ")");
            }
          }
        }
      } catch (IOException e) {
        problems.add("cannot list " + snapshotDir + ": " + e.getMessage());
      }
    }
    // Structural problems (a shard missing, twice, elsewhere, unopenable) leave nothing to keep;
    // counts that disagree are a gate: the shards are whole and the build can hold them.
    List<String> counts = new ArrayList<>();
    long total = 0;
    for (ShardResult r : byShard.values()) {
      Path dir = layout.shardDir(snapshotId, r.shard());
      if (!dir.toAbsolutePath().normalize().equals(Path.of(r.directory()).toAbsolutePath().normalize())) {
        problems.add("shard " + r.shard() + " was written to " + r.directory() + ", expected " + dir);
        continue;
      }
      try (FSDirectory d = FSDirectory.open(dir); DirectoryReader reader = DirectoryReader.open(d)) {
        if (reader.numDocs() != r.chunks()) {
          counts.add("shard " + r.shard() + " holds " + reader.numDocs() + " chunks, its writer reported " + r.chunks());
        }
        total += reader.numDocs();
      } catch (IOException e) {
        problems.add("shard " + r.shard() + " cannot be opened: " + e.getMessage());
      }
    }
    if (problems.isEmpty() && counts.isEmpty() && expectedChunks >= 0 && total != expectedChunks) {
      counts.add("shards hold " + total + " chunks but the job embedded " + expectedChunks);
    }
    if (!problems.isEmpty()) {
      problems.addAll(counts);
      throw new SnapshotException("snapshot " + snapshotId + " will not be published: " + String.join("; ", problems));
    }
    if (!counts.isEmpty()) {
      throw new GateFailedException(dev.kiln.snapshot.HeldRecord.VERIFIER, "snapshot " + snapshotId
          + " will not be published: " + String.join("; ", counts), new ArrayList<>(byShard.values()));
    }
    return new ArrayList<>(byShard.values());
  }
}
