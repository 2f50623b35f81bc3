package dev.kiln.index;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.UnixOperatingSystemMXBean;
import dev.kiln.config.IndexConfig;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriterDirectoriesTest {
  @TempDir Path dir;

  @Test
  void absentAndEmptyDirectoriesAreAcceptedAnythingElseRefused() throws IOException {
    assertDoesNotThrow(() -> WriterDirectories.requireEmpty(dir.resolve("absent"), "shard directory"));
    Files.createDirectories(dir.resolve("empty"));
    assertDoesNotThrow(() -> WriterDirectories.requireEmpty(dir.resolve("empty"), "shard directory"));
    Files.writeString(dir.resolve("empty/_0.cfs"), "x");
    IOException e = assertThrows(IOException.class,
        () -> WriterDirectories.requireEmpty(dir.resolve("empty"), "shard directory"));
    assertTrue(e.getMessage().contains("not empty"), e.getMessage());
    Files.writeString(dir.resolve("file"), "x");
    assertThrows(IOException.class, () -> WriterDirectories.requireEmpty(dir.resolve("file"), "docstore directory"));
  }

  @Test
  void refusedWritersLeaveNoDirectoryOpen() throws IOException {
    Path shard = Files.createDirectories(dir.resolve("shard-0"));
    Files.writeString(shard.resolve("leftover"), "from an earlier attempt");
    long before = openDescriptors();
    for (int i = 0; i < 2_000; i++) {
      assertThrows(IOException.class, () -> new ShardIndexWriter(shard, new IndexConfig(), 4).close());
      assertThrows(IOException.class, () -> new ParentStoreWriter(shard).close());
    }
    long after = openDescriptors();
    // Before the fix each refusal leaked the listing's descriptor: 4,000 here.
    assertTrue(after - before < 100, "descriptors open before " + before + ", after " + after);
  }

  private static long openDescriptors() {
    return ((UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getOpenFileDescriptorCount();
  }
}
