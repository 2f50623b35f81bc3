package dev.kiln.search;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;

/**
 * What the integrity tests do to a snapshot's files after it was verified: flip one byte keeping the
 * size, the way a failing disk or a careless editor would, or the way a careful attacker would (the
 * modification time put back, or a copy moved over the original).
 */
public final class Tampering {
  private Tampering() {}

  /** The compound segment file of {@code shardDir} ({@code _0.cfs} in the fixture's shards). */
  public static Path segmentFile(Path shardDir) throws IOException {
    try (Stream<Path> files = Files.list(shardDir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".cfs")).sorted().findFirst().orElseThrow(
          () -> new IOException("no .cfs file in " + shardDir));
    }
  }

  /** Flips one bit in the middle of {@code file}, in place: same inode, same size, a new modification time. */
  public static void flipInPlace(Path file) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      long at = f.length() / 2;
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 1);
    }
  }

  /** As {@link #flipInPlace}, then puts the old modification time back: only the bytes tell. */
  public static void flipInPlaceKeepingTime(Path file) throws IOException {
    FileTime before = Files.getLastModifiedTime(file);
    flipInPlace(file);
    Files.setLastModifiedTime(file, before);
  }

  /**
   * Replaces {@code file} by a copy with one bit flipped and the original's modification time: same
   * size and time, another inode (the copy is made while the original still exists, so the file
   * system cannot hand the same inode number back).
   */
  public static void replaceByFlippedCopy(Path file) throws IOException {
    FileTime before = Files.getLastModifiedTime(file);
    Path copy = file.resolveSibling(file.getFileName() + ".copy");
    Files.copy(file, copy);
    flipInPlace(copy);
    Files.setLastModifiedTime(copy, before);
    Files.move(copy, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** The file's identity as the file system reports it (an inode and device on Linux), or null. */
  public static Object fileKey(Path file) throws IOException {
    return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
  }

  /**
   * Moves the modification time of every file under {@code dir} into the past, as if the snapshot had
   * been written well before it was verified: a file modified within moments of its verification is
   * hashed again at open whatever its identity says (its time cannot tell two writes apart).
   */
  public static void backdate(Path dir, Duration by) throws IOException {
    FileTime then = FileTime.from(Instant.now().minus(by));
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(p, then);
      }
    }
  }
}
