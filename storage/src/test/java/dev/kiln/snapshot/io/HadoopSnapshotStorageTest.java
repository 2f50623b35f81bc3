package dev.kiln.snapshot.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HadoopSnapshotStorage}'s own behaviour: the lock file that makes its compare-and-set real.
 * The shared storage contract runs in {@link HadoopSnapshotStorageContractTest}.
 */
class HadoopSnapshotStorageTest {
  @TempDir Path dir;

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void compareAndSetWaitsForAHeldLockThenFailsNamingItAndTakesOverAStaleOne() throws Exception {
    HadoopSnapshotStorage st = new HadoopSnapshotStorage(dir.toUri().toString(), Map.of(), Duration.ofMillis(300));
    assertTrue(st.compareAndSet("CURRENT", null, utf8("a")));
    assertFalse(Files.exists(dir.resolve("CURRENT.lock")), "the lock is released");

    Path lock = Files.writeString(dir.resolve("CURRENT.lock"), "4242@other-host");
    IOException held = assertThrows(IOException.class,
        () -> st.compareAndSet("CURRENT", utf8("a"), utf8("b")));
    assertTrue(held.getMessage().contains("held by another publisher (4242@other-host)"), held.getMessage());
    assertArrayEquals(utf8("a"), st.read("CURRENT").orElseThrow(), "nothing changed while the lock was held");

    Files.setLastModifiedTime(lock, FileTime.fromMillis(
        System.currentTimeMillis() - HadoopSnapshotStorage.STALE_LOCK.toMillis() - 60_000));
    assertTrue(st.compareAndSet("CURRENT", utf8("a"), utf8("b")), "a crashed publisher's stale lock is taken over");
    assertArrayEquals(utf8("b"), st.read("CURRENT").orElseThrow());
    assertFalse(Files.exists(lock));
  }
}
