package dev.kiln.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SnapshotStorage} on a local (or POSIX network) file system. Whole-object writes go to a
 * temporary name, are synced and renamed into place; compare-and-set holds an exclusive file lock on
 * a sibling {@code .NAME.lock} file, so two processes on one host cannot interleave. Only regular
 * files are read: a FIFO, device, socket or directory under an object's name is refused before it is
 * opened (opening a FIFO for reading blocks until a writer comes, which may be never).
 */
public final class LocalSnapshotStorage implements SnapshotStorage {
  /** FileLock is per process: threads of one JVM must also exclude each other. */
  private static final Object JVM_LOCK = new Object();
  private static final Logger LOG = LoggerFactory.getLogger(LocalSnapshotStorage.class);

  private final Path root;

  public LocalSnapshotStorage(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  public Path root() {
    return root;
  }

  /** The file behind a key; keys never leave the root. */
  public Path path(String key) {
    Path p = root.resolve(key).normalize();
    if (!p.startsWith(root)) {
      throw new IllegalArgumentException("key escapes the snapshots root: " + key);
    }
    return p;
  }

  /** Refused before reading when the file is larger than {@code maxBytes} or not a regular file. */
  @Override
  public Optional<byte[]> read(String key, int maxBytes) throws IOException {
    Path p = path(key);
    try {
      if (regularFile(p).size() > maxBytes) {
        throw new IOException(p + " is larger than " + maxBytes + " bytes: refused");
      }
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    return SnapshotStorage.super.read(key, maxBytes);
  }

  @Override
  public Optional<byte[]> read(String key) throws IOException {
    Path p = path(key);
    try {
      regularFile(p);
      return Optional.of(Files.readAllBytes(p));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  @Override
  public InputStream open(String key) throws IOException {
    Path p = path(key);
    regularFile(p);
    return Files.newInputStream(p);
  }

  @Override
  public boolean linksSharedFiles() {
    return true;
  }

  /** A hard link, or a copy where the file system has none (both ends are under one root). */
  @Override
  public void share(String from, String to) throws IOException {
    Path source = path(from);
    regularFile(source);
    Path target = path(to);
    Files.createDirectories(target.getParent());
    try {
      Files.createLink(target, source);
    } catch (UnsupportedOperationException | FileSystemException e) {
      if (e instanceof FileAlreadyExistsException) {
        throw (FileAlreadyExistsException) e;
      }
      Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
    }
  }

  @Override
  public Optional<FileIdentity> identity(String key) throws IOException {
    return Optional.of(FileIdentity.of(Files.readAttributes(path(key), BasicFileAttributes.class)));
  }

  /**
   * The attributes of {@code p} (links followed) if it is a regular file; anything else is refused
   * with an {@link IOException} naming what it is, without opening it.
   */
  static BasicFileAttributes regularFile(Path p) throws IOException {
    BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
    if (!a.isRegularFile()) {
      throw new IOException(p + " is " + kind(p, a) + ", not a regular file: refused without opening it");
    }
    return a;
  }

  /** What a file that is not a regular one is, in words ("a FIFO", "a directory", …). */
  private static String kind(Path p, BasicFileAttributes a) {
    if (a.isDirectory()) {
      return "a directory";
    }
    try {
      int type = ((Integer) Files.getAttribute(p, "unix:mode")) & 0170000;
      switch (type) {
        case 0010000:
          return "a FIFO (named pipe)";
        case 0020000:
          return "a character device";
        case 0060000:
          return "a block device";
        case 0140000:
          return "a socket";
        default:
          break;
      }
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
      // No unix view here: say what the portable attributes know.
    }
    return "a special file (FIFO, device or socket)";
  }

  @Override
  public long size(String key) throws IOException {
    return Files.size(path(key));
  }

  @Override
  public boolean exists(String key) {
    return Files.exists(path(key));
  }

  @Override
  public void write(String key, byte[] data) throws IOException {
    Path target = path(key);
    Files.createDirectories(target.getParent());
    Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp-" + ProcessHandle.current().pid()
        + "-" + Thread.currentThread().threadId());
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buf = ByteBuffer.wrap(data);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    fsyncDirectory(target.getParent());
  }

  @Override
  public boolean compareAndSet(String key, byte[] expected, byte[] update) throws IOException {
    return locked(key, () -> {
      byte[] actual = read(key, SnapshotLayout.MAX_RECORD_BYTES).orElse(null);
      if (!Arrays.equals(actual, expected)) {
        return false;
      }
      write(key, update);
      return true;
    });
  }

  /** Lock files this thread holds: {@link #locked} is re-entrant, a {@link FileLock} is not. */
  private static final ThreadLocal<Set<Path>> HELD = ThreadLocal.withInitial(HashSet::new);

  /**
   * An exclusive {@link FileLock} on the sibling {@code .NAME.lock} (the one compare-and-set takes), so
   * that processes on this host — and the threads of this JVM — run such actions one at a time.
   */
  @Override
  public <T> T locked(String key, LockedAction<T> action) throws IOException {
    Path target = path(key);
    Path lockFile = target.resolveSibling("." + target.getFileName() + ".lock");
    if (HELD.get().contains(lockFile)) {
      return action.run();
    }
    Files.createDirectories(target.getParent());
    synchronized (JVM_LOCK) {
      try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
        FileLock lock = ch.tryLock();
        if (lock == null) {
          LOG.info("waiting for the lock {} (another publish, rollback or gc holds it)", lockFile);
          lock = ch.lock();
        }
        HELD.get().add(lockFile);
        try (FileLock held = lock) {
          return action.run();
        } finally {
          HELD.get().remove(lockFile);
        }
      }
    }
  }

  @Override
  public List<String> list(String prefix) throws IOException {
    Path dir = path(prefix);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Override
  public void delete(String key) throws IOException {
    Files.deleteIfExists(path(key));
  }

  @Override
  public void deleteTree(String prefix) throws IOException {
    LocalFiles.deleteTree(path(prefix));
  }

  @Override
  public long lastModified(String key) throws IOException {
    try {
      return Files.getLastModifiedTime(path(key)).toMillis();
    } catch (NoSuchFileException e) {
      return -1;
    }
  }

  private static void fsyncDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some file systems cannot sync a directory; the rename itself is still atomic there.
    }
  }
}
