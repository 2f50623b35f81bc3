package dev.kiln.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.snapshot.SnapshotException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one way to open a snapshot: settings checked at build, errors naming the setting. */
class SearcherBuilderTest {
  @TempDir static Path root;
  private static String first;
  private static String second;

  @BeforeAll
  static void writeTwoSnapshots() throws IOException {
    float[] v = new float[384];
    v[0] = 1;
    first = SnapshotFixture.withVectors(c -> v).write(root);
    second = SnapshotFixture.withVectors(c -> v).publish(false).write(root);
  }

  @Test
  void followsCurrentUnlessASnapshotIsNamed() throws IOException {
    try (Searcher current = Searcher.builder().root(root).build();
        Searcher named = Searcher.builder().root(root).snapshot(second).build();
        Searcher unset = Searcher.builder().root(root).snapshot(null).build()) {
      assertEquals(first, current.snapshotId());
      assertEquals(second, named.snapshotId());
      assertEquals(first, unset.snapshotId());
    }
  }

  @Test
  void takesTheOptionsAndTheRootAsAPlainPathOrAFileUri() throws IOException {
    SearchOptions options = SearchOptions.defaults().withEf(42);
    try (Searcher byUri = Searcher.builder().root(root.toUri()).options(options).build();
        Searcher byPlainUri = Searcher.builder().root(URI.create(root.toString())).build()) {
      assertEquals(42, byUri.options().ef());
      assertEquals(first, byUri.snapshotId());
      assertEquals(first, byPlainUri.snapshotId());
      assertEquals(SearchOptions.defaults(), byPlainUri.options());
    }
  }

  @Test
  void aMissingRootIsNamed() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> Searcher.builder().build());
    assertTrue(e.getMessage().contains("root is not set"), e.getMessage());
  }

  @Test
  void aBlankSnapshotIdOrNullOptionsAreNamed() {
    IllegalStateException blank = assertThrows(IllegalStateException.class,
        () -> Searcher.builder().root(root).snapshot(" ").build());
    assertTrue(blank.getMessage().contains("snapshot id is blank"), blank.getMessage());
    IllegalStateException options = assertThrows(IllegalStateException.class,
        () -> Searcher.builder().root(root).options(null).build());
    assertTrue(options.getMessage().contains("options must not be null"), options.getMessage());
  }

  @Test
  void aRemoteRootNoFileSystemServesIsRefusedNamingIt() {
    // Remote roots are copied down through the storage module (S3SnapshotsITCase and HdfsITCase open
    // real ones); a scheme no client serves fails at once, naming the root.
    SnapshotException e = assertThrows(SnapshotException.class,
        () -> Searcher.builder().root("nosuchfs://bucket/snapshots").build());
    assertTrue(e.getMessage().contains("nosuchfs://bucket/snapshots"), e.getMessage());
  }

  @Test
  void theLastRootSetWins() throws IOException {
    try (Searcher s = Searcher.builder().root("nosuchfs://bucket/snapshots").root(root).build()) {
      assertEquals(first, s.snapshotId());
    }
  }
}
