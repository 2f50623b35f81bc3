package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafePathsTest {
  @TempDir Path dir;

  @Test
  void everyNameKilnWritesIsSafe() {
    for (String ok : List.of("_0.cfs", "segments_1", "_0_Lucene99HnswVectorsFormat_0.vec", "part-00000.parquet",
        "shard-00000/_0.cfe", "shard-00000")) {
      assertTrue(SafePaths.isSafe(ok), ok);
    }
  }

  @Test
  void absoluteTraversingAndOddNamesAreRefused() {
    for (String bad : List.of("/etc/passwd", "../x", "a/../../x", "a//b", "//host/x", "a/", "", ".", "..", ".hidden",
        "a\\b", "C:x", "s3://bucket/x", "a\u0000b", "a\nb", "x/./y")) {
      assertFalse(SafePaths.isSafe(bad), bad);
      SnapshotException e = assertThrows(SnapshotException.class, () -> SafePaths.check("file name", bad));
      assertTrue(e.getMessage().contains("is not a relative path inside the snapshot"), e.getMessage());
    }
  }

  @Test
  void resolveStaysUnderTheBaseEvenThroughALink() throws Exception {
    Path base = Files.createDirectories(dir.resolve("snap"));
    Path outside = Files.createDirectories(dir.resolve("outside"));
    assertEquals(base.resolve("shard-00000/_0.cfs"), SafePaths.resolve(base, "file", "shard-00000/_0.cfs"));
    Files.createSymbolicLink(base.resolve("shard-00001"), outside);
    SnapshotException e = assertThrows(SnapshotException.class,
        () -> SafePaths.resolve(base, "file", "shard-00001/_0.cfs"));
    assertTrue(e.getMessage().contains("through a link"), e.getMessage());
  }
}
