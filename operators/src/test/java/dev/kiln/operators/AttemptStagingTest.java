package dev.kiln.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.operators.fs.LocalTarget;
import dev.kiln.snapshot.SnapshotLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A retried writer removes what its earlier attempt left for the shards it owns, and nothing else. */
class AttemptStagingTest {
  @TempDir Path root;

  @Test
  void anEarlierAttemptsShardFilesAreRemovedAndOtherWritersShardsKept() throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    Path snapshot = root.resolve(SnapshotLayout.SNAPSHOTS_DIR).resolve(id);
    Path mine = Files.createDirectories(snapshot.resolve(SnapshotLayout.shardDirName(1)));
    Files.writeString(mine.resolve("_0.cfs"), "half-written segment of attempt 0");
    Path other = Files.createDirectories(snapshot.resolve(SnapshotLayout.shardDirName(0)));
    Files.writeString(other.resolve("_0.cfs"), "another writer's shard");
    Files.writeString(snapshot.resolve(SnapshotLayout.STAGING), "{}");

    // Writer 1 of 2 owns shards 1 and 3 of 4.
    assertEquals(List.of(1, 3), AttemptStaging.owned(1, 2, 4));
    AttemptStaging.clean(new LocalTarget(root.toString()), id, null, AttemptStaging.owned(1, 2, 4));

    assertFalse(Files.exists(mine), "the retried writer starts from nothing");
    assertTrue(Files.exists(other.resolve("_0.cfs")), "shards of other writers are untouched");
    assertTrue(Files.exists(snapshot.resolve(SnapshotLayout.STAGING)));
  }

  @Test
  void aParentsPartIsRemovedUnderItsDirectoryAndAFirstAttemptFindsNothing() throws Exception {
    String id = SnapshotLayout.newSnapshotId();
    Path part = Files.createDirectories(root.resolve(SnapshotLayout.SNAPSHOTS_DIR).resolve(id)
        .resolve(SnapshotLayout.PARENTS).resolve(SnapshotLayout.shardDirName(0)));
    Files.writeString(part.resolve("_0.fdt"), "stale");
    AttemptStaging.clean(new LocalTarget(root.toString()), id, SnapshotLayout.PARENTS, List.of(0));
    assertFalse(Files.exists(part));
    AttemptStaging.clean(new LocalTarget(root.toString()), SnapshotLayout.newSnapshotId(), null, List.of(0, 1)); // nothing there
  }
}
