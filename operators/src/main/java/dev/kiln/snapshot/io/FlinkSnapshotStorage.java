package dev.kiln.snapshot.io;

import dev.kiln.snapshot.SnapshotStorage;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * {@link SnapshotStorage} on any other Flink file system ({@code hdfs://}, ...) for roots that
 * {@link S3SnapshotStorage} does not serve. Flink's API has no conditional write, but creating a file
 * without overwrite is exclusive on HDFS (the NameNode refuses a second create), so compare-and-set
 * holds a lock file {@code KEY.lock} around read-compare-write: two publishers cannot interleave. A
 * lock older than {@link #STALE_LOCK} is taken to be a crashed publisher's and removed. (On a file
 * system whose create is not exclusive this degrades to the read-compare-write fallback; the
 * publisher still reads back afterwards and reports a lost race.)
 */
public final class FlinkSnapshotStorage implements SnapshotStorage {
  /** A compare-and-set takes milliseconds; a lock this old belongs to a process that died holding it. */
  public static final Duration STALE_LOCK = Duration.ofMinutes(10);
  private static final String LOCK_SUFFIX = ".lock";

  private final String root;
  private final Duration lockWait;

  public FlinkSnapshotStorage(String root) {
    this(root, Duration.ofSeconds(30));
  }

  /** @param lockWait how long a compare-and-set waits for another one's lock before failing */
  public FlinkSnapshotStorage(String root, Duration lockWait) {
    this.root = root.replaceAll("/+$", "");
    this.lockWait = lockWait;
  }

  private Path path(String key) {
    if (key.startsWith("/") || key.contains("..") || key.contains("//") || key.contains("\\")) {
      throw new IllegalArgumentException("key escapes the snapshots root: " + key);
    }
    return new Path(root + "/" + key.replaceAll("/+$", ""));
  }

  private static FileSystem fs(Path p) throws IOException {
    return p.getFileSystem();
  }

  @Override
  public Optional<byte[]> read(String key) throws IOException {
    Path p = path(key);
    if (!fs(p).exists(p)) {
      return Optional.empty();
    }
    try (InputStream in = fs(p).open(p)) {
      return Optional.of(in.readAllBytes());
    } catch (java.io.FileNotFoundException e) {
      return Optional.empty(); // removed between the two calls
    }
  }

  @Override
  public InputStream open(String key) throws IOException {
    Path p = path(key);
    if (!fs(p).exists(p)) {
      throw new NoSuchFileException(p.toString());
    }
    return fs(p).open(p);
  }

  @Override
  public long size(String key) throws IOException {
    Path p = path(key);
    if (!fs(p).exists(p)) {
      throw new NoSuchFileException(p.toString());
    }
    return fs(p).getFileStatus(p).getLen();
  }

  @Override
  public boolean exists(String key) throws IOException {
    Path p = path(key);
    return fs(p).exists(p);
  }

  /**
   * Written under a temporary name, then renamed: a reader never sees a partial object. HDFS refuses a
   * rename onto an existing file, so a replacement deletes the old object first and a reader may, for
   * that moment, find none (and retry).
   */
  @Override
  public void write(String key, byte[] data) throws IOException {
    Path target = path(key);
    Path tmp = path(key + ".tmp-" + java.util.UUID.randomUUID());
    RemoteFiles.writeBytes(tmp, data);
    FileSystem fs = fs(target);
    if (!fs.rename(tmp, target)) {
      fs.delete(target, false);
      if (!fs.rename(tmp, target)) {
        fs.delete(tmp, false);
        throw new IOException("cannot rename " + tmp + " to " + target);
      }
    }
  }

  @Override
  public synchronized boolean compareAndSet(String key, byte[] expected, byte[] update) throws IOException {
    return locked(key, () -> {
      if (!Arrays.equals(read(key, dev.kiln.snapshot.SnapshotLayout.MAX_RECORD_BYTES).orElse(null), expected)) {
        return false;
      }
      write(key, update);
      return true;
    });
  }

  /** Lock keys this thread holds, so that a compare-and-set inside {@link #locked} does not wait on itself. */
  private final ThreadLocal<java.util.Set<String>> held = ThreadLocal.withInitial(java.util.HashSet::new);

  /** Holds the exclusively created {@code KEY.lock} around the action (see the class comment). */
  @Override
  public synchronized <T> T locked(String key, LockedAction<T> action) throws IOException {
    String lockKey = key + LOCK_SUFFIX;
    if (held.get().contains(lockKey)) {
      return action.run();
    }
    Path lock = path(lockKey);
    acquire(lockKey);
    held.get().add(lockKey);
    try {
      return action.run();
    } finally {
      held.get().remove(lockKey);
      fs(lock).delete(lock, false);
    }
  }

  private void acquire(String lockKey) throws IOException {
    Path lock = path(lockKey);
    long deadline = System.nanoTime() + lockWait.toNanos();
    String owner = ProcessHandle.current().pid() + "@" + java.net.InetAddress.getLocalHost().getHostName()
        + " " + Instant.now();
    while (true) {
      try (OutputStream out = createExclusively(lock)) {
        out.write(owner.getBytes(StandardCharsets.UTF_8));
        return;
      } catch (IOException e) {
        // The holder may release it between our create and this check, so "already exists" (HDFS's own
        // exception or java.nio's) counts as held too; anything else is a real I/O problem.
        boolean held = e.getClass().getSimpleName().equals("FileAlreadyExistsException") || fs(lock).exists(lock);
        if (!held) {
          throw e;
        }
      }
      long modified = lastModified(lockKey);
      if (modified < 0) {
        continue; // released meanwhile: try again at once
      }
      if (System.currentTimeMillis() - modified > STALE_LOCK.toMillis()) {
        fs(lock).delete(lock, false);
        continue;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("compare-and-set lock " + lock + " is held by another publisher ("
            + new String(read(lockKey).orElse(new byte[0]), StandardCharsets.UTF_8) + ") for more than "
            + lockWait.toSeconds() + " s; if no build, publish, rollback or gc is running, delete it");
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted waiting for " + lock);
      }
    }
  }

  /**
   * Creates the lock file only if it does not exist, atomically. Flink's local file system checks for
   * the file and then creates it, so two processes can both "create" it; for {@code file:} paths the
   * JDK's {@code CREATE_NEW} (one atomic open with {@code O_EXCL}) is used instead. HDFS's own create
   * without overwrite is already exclusive (the NameNode refuses the second one).
   */
  private static OutputStream createExclusively(Path lock) throws IOException {
    if ("file".equals(lock.toUri().getScheme()) || (lock.toUri().getScheme() == null && !fs(lock).isDistributedFS())) {
      java.nio.file.Path local = java.nio.file.Path.of(lock.toUri().getPath());
      java.nio.file.Files.createDirectories(local.getParent());
      return java.nio.file.Files.newOutputStream(local, java.nio.file.StandardOpenOption.CREATE_NEW,
          java.nio.file.StandardOpenOption.WRITE);
    }
    return fs(lock).create(lock, FileSystem.WriteMode.NO_OVERWRITE);
  }

  @Override
  public List<String> list(String dir) throws IOException {
    Path p = path(dir);
    // A file is not a directory: listing one must not return the file itself (as HDFS would).
    if (!fs(p).exists(p) || !fs(p).getFileStatus(p).isDir()) {
      return List.of();
    }
    FileStatus[] st = fs(p).listStatus(p);
    return st == null ? List.of() : Arrays.stream(st).map(s -> s.getPath().getName()).sorted().toList();
  }

  @Override
  public void delete(String key) throws IOException {
    Path p = path(key);
    if (fs(p).exists(p)) {
      fs(p).delete(p, false);
    }
  }

  @Override
  public void deleteTree(String dir) throws IOException {
    RemoteFiles.deleteRecursively(path(dir));
  }

  @Override
  public long lastModified(String key) throws IOException {
    Path p = path(key);
    try {
      return fs(p).exists(p) ? fs(p).getFileStatus(p).getModificationTime() : -1;
    } catch (java.io.FileNotFoundException e) {
      return -1; // removed between the two calls (a released lock, say)
    }
  }
}
