package dev.kiln.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFilesTest {
  @TempDir Path dir;

  @Test
  void deletesTheWholeTreeAndNothingBesideIt() throws Exception {
    Path tree = Files.createDirectories(dir.resolve("tree/shard-00000/nested"));
    Files.writeString(tree.resolve("a"), "a");
    Files.writeString(dir.resolve("tree/b"), "b");
    Files.writeString(dir.resolve("beside"), "c");
    LocalFiles.deleteTree(dir.resolve("tree"));
    assertFalse(Files.exists(dir.resolve("tree")));
    assertTrue(Files.exists(dir.resolve("beside")));
  }

  @Test
  void anAbsentTreeIsNothingToDo() throws Exception {
    LocalFiles.deleteTree(dir.resolve("absent"));
    List<Path> failed = new ArrayList<>();
    LocalFiles.deleteTree(dir.resolve("absent"), (p, e) -> failed.add(p));
    assertEquals(List.of(), failed);
  }

  @Test
  void aLinkInsideIsRemovedNotFollowed() throws Exception {
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.writeString(outside.resolve("kept"), "k");
    Path tree = Files.createDirectories(dir.resolve("tree"));
    Files.createSymbolicLink(tree.resolve("link"), outside);
    List<Path> failed = new ArrayList<>();
    LocalFiles.deleteTree(tree, (p, e) -> failed.add(p));
    assertEquals(List.of(), failed);
    assertFalse(Files.exists(tree));
    assertTrue(Files.exists(outside.resolve("kept")));
  }
}
