package dev.kiln.snapshot.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FlinkSnapshotStorage} (the storage of {@code hdfs://} and other Flink roots) on Flink's
 * {@code file://} file system: the same contract as the S3 and local storages, with
 * compare-and-set as read-compare-write.
 */
class FlinkSnapshotStorageTest {
  @TempDir Path dir;

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void storageContract() throws Exception {
    FlinkSnapshotStorage st = new FlinkSnapshotStorage(dir.toUri().toString());
    assertTrue(st.read("CURRENT").isEmpty());
    assertFalse(st.exists("CURRENT"));
    assertThrows(NoSuchFileException.class, () -> st.size("snapshots/x/a"));
    assertThrows(NoSuchFileException.class, () -> st.open("snapshots/x/a"));
    assertEquals(-1, st.lastModified("CURRENT"));
    st.write("snapshots/x/a", utf8("alpha"));
    st.write("snapshots/x/d/b", utf8("beta"));
    assertArrayEquals(utf8("alpha"), st.read("snapshots/x/a").orElseThrow());
    assertEquals(4, st.size("snapshots/x/d/b"));
    assertTrue(st.lastModified("snapshots/x/a") > 0);
    assertEquals(List.of("x"), st.list("snapshots/"));
    assertEquals(List.of("a", "d"), st.list("snapshots/x/"));
    assertEquals(List.of(), st.list("nothing/"));
    assertEquals(List.of(), st.list("snapshots/x/a/"), "a file lists nothing under it");
    st.deleteTree("snapshots/x/");
    assertEquals(List.of(), st.list("snapshots/"));
    st.delete("snapshots/x/a"); // absent: ignored
    assertThrows(IllegalArgumentException.class, () -> st.read("../escape"));

    assertTrue(st.compareAndSet("CURRENT", null, utf8("a")));
    assertFalse(st.compareAndSet("CURRENT", null, utf8("b")));
    assertFalse(st.compareAndSet("CURRENT", utf8("x"), utf8("b")));
    assertTrue(st.compareAndSet("CURRENT", utf8("a"), utf8("b")));
    assertArrayEquals(utf8("b"), st.read("CURRENT").orElseThrow());
  }

  @Test
  void compareAndSetWaitsForAHeldLockThenFailsNamingItAndTakesOverAStaleOne() throws Exception {
    FlinkSnapshotStorage st = new FlinkSnapshotStorage(dir.toUri().toString(), java.time.Duration.ofMillis(300));
    assertTrue(st.compareAndSet("CURRENT", null, utf8("a")));
    assertFalse(java.nio.file.Files.exists(dir.resolve("CURRENT.lock")), "the lock is released");

    java.nio.file.Path lock = java.nio.file.Files.writeString(dir.resolve("CURRENT.lock"), "4242@other-host");
    java.io.IOException held = assertThrows(java.io.IOException.class,
        () -> st.compareAndSet("CURRENT", utf8("a"), utf8("b")));
    assertTrue(held.getMessage().contains("held by another publisher (4242@other-host)"), held.getMessage());
    assertArrayEquals(utf8("a"), st.read("CURRENT").orElseThrow(), "nothing changed while the lock was held");

    java.nio.file.Files.setLastModifiedTime(lock, java.nio.file.attribute.FileTime.fromMillis(
        System.currentTimeMillis() - FlinkSnapshotStorage.STALE_LOCK.toMillis() - 60_000));
    assertTrue(st.compareAndSet("CURRENT", utf8("a"), utf8("b")), "a crashed publisher's stale lock is taken over");
    assertArrayEquals(utf8("b"), st.read("CURRENT").orElseThrow());
    assertFalse(java.nio.file.Files.exists(lock));
  }
}
