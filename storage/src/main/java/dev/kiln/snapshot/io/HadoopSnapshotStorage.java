package dev.kiln.snapshot.io;

import dev.kiln.snapshot.ObjectStat;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStorage;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;

/**
 * {@link SnapshotStorage} on a Hadoop file system ({@code hdfs://}, and any other scheme the Hadoop
 * client on the classpath serves) for roots that {@link S3SnapshotStorage} does not serve. It uses
 * Hadoop's client directly, not Flink's file systems, so that the searcher and the CLI reach an
 * {@code hdfs://} root without Flink on their classpath.
 *
 * <p>Hadoop's API has no conditional write, but creating a file without overwrite is exclusive on
 * HDFS (the NameNode refuses a second create), so compare-and-set holds a lock file {@code KEY.lock}
 * around read-compare-write: two publishers cannot interleave. A lock older than {@link #STALE_LOCK}
 * is taken to be a crashed publisher's and removed. (On a file system whose create is not exclusive
 * this degrades to the read-compare-write fallback; the publisher still reads back afterwards and
 * reports a lost race.)
 */
public final class HadoopSnapshotStorage implements SnapshotStorage {
  /** A compare-and-set takes milliseconds; a lock this old belongs to a process that died holding it. */
  public static final Duration STALE_LOCK = Duration.ofMinutes(10);
  private static final String LOCK_SUFFIX = ".lock";

  private final String root;
  private final FileSystem fs;
  private final Duration lockWait;
  /** Lock keys this thread holds, so that a compare-and-set inside {@link #locked} does not wait on itself. */
  private final ThreadLocal<Set<String>> held = ThreadLocal.withInitial(HashSet::new);

  /** A storage over {@code root} with the Hadoop settings of {@link HadoopSettings#configuration}. */
  public HadoopSnapshotStorage(String root, Map<String, String> settings) {
    this(root, settings, Duration.ofSeconds(30));
  }

  /** @param lockWait how long a compare-and-set waits for another one's lock before failing */
  public HadoopSnapshotStorage(String root, Map<String, String> settings, Duration lockWait) {
    this.root = root.replaceAll("/+$", "");
    this.lockWait = lockWait;
    try {
      URI uri = URI.create(this.root);
      Configuration conf = HadoopSettings.configuration(settings);
      // The checksummed local file system writes .crc files beside every object; a file: root (tests,
      // a mounted share) gets the raw one, as the snapshot protocol keeps its own SHA-256 sums.
      this.fs = "file".equals(uri.getScheme()) ? FileSystem.getLocal(conf).getRawFileSystem() : FileSystem.get(uri, conf);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot reach the snapshots root " + root + ": " + e.getMessage(), e);
    }
  }

  private Path path(String key) {
    if (key.startsWith("/") || key.contains("..") || key.contains("//") || key.contains("\\")) {
      throw new IllegalArgumentException("key escapes the snapshots root: " + key);
    }
    return new Path(root + "/" + key.replaceAll("/+$", ""));
  }

  @Override
  public Optional<byte[]> read(String key) throws IOException {
    Path p = path(key);
    try (InputStream in = fs.open(p)) {
      return Optional.of(in.readAllBytes());
    } catch (FileNotFoundException e) {
      return Optional.empty();
    }
  }

  @Override
  public InputStream open(String key) throws IOException {
    Path p = path(key);
    try {
      return fs.open(p);
    } catch (FileNotFoundException e) {
      throw new NoSuchFileException(p.toString());
    }
  }

  @Override
  public long size(String key) throws IOException {
    Path p = path(key);
    try {
      return fs.getFileStatus(p).getLen();
    } catch (FileNotFoundException e) {
      throw new NoSuchFileException(p.toString());
    }
  }

  /**
   * Size and version token from one {@code getFileStatus}: on HDFS the file id (the inode number the
   * NameNode gives every new file: a replaced file has another), the modification time and the
   * length; on a file system that reports an ETag ({@link EtagSource}: ABFS, S3A), that instead of the
   * id. Elsewhere (a {@code file:} root) time and length alone, which miss a same-size rewrite that
   * puts the old time back — as a local root's identities do ({@link dev.kiln.snapshot.FileIdentity}).
   */
  @Override
  public ObjectStat stat(String key) throws IOException {
    Path p = path(key);
    FileStatus st;
    try {
      st = fs.getFileStatus(p);
    } catch (FileNotFoundException e) {
      throw new NoSuchFileException(p.toString());
    }
    String id = st instanceof HdfsFileStatus h ? "id=" + h.getFileId()
        : st instanceof EtagSource e && e.getEtag() != null ? "etag=" + e.getEtag() : "path";
    return new ObjectStat(st.getLen(), id + ";mtime=" + st.getModificationTime() + ";len=" + st.getLen());
  }

  @Override
  public boolean exists(String key) throws IOException {
    return fs.exists(path(key));
  }

  /**
   * Written under a temporary name, then renamed: a reader never sees a partial object. HDFS refuses a
   * rename onto an existing file, so a replacement deletes the old object first and a reader may, for
   * that moment, find none (and retry).
   */
  @Override
  public void write(String key, byte[] data) throws IOException {
    Path target = path(key);
    Path tmp = path(key + ".tmp-" + UUID.randomUUID());
    try (OutputStream out = fs.create(tmp, true)) {
      out.write(data);
    }
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
      if (!Arrays.equals(read(key, SnapshotLayout.MAX_RECORD_BYTES).orElse(null), expected)) {
        return false;
      }
      write(key, update);
      return true;
    });
  }

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
      fs.delete(lock, false);
    }
  }

  private void acquire(String lockKey) throws IOException {
    Path lock = path(lockKey);
    long deadline = System.nanoTime() + lockWait.toNanos();
    String owner = ProcessHandle.current().pid() + "@" + InetAddress.getLocalHost().getHostName()
        + " " + Instant.now();
    while (true) {
      try (OutputStream out = createExclusively(lock)) {
        out.write(owner.getBytes(StandardCharsets.UTF_8));
        return;
      } catch (IOException e) {
        // The holder may release it between our create and this check, so "already exists" (HDFS's own
        // exception or java.nio's) counts as held too; anything else is a real I/O problem.
        boolean taken = e.getClass().getSimpleName().equals("FileAlreadyExistsException") || fs.exists(lock);
        if (!taken) {
          throw e;
        }
      }
      long modified = lastModified(lockKey);
      if (modified < 0) {
        continue; // released meanwhile: try again at once
      }
      if (System.currentTimeMillis() - modified > STALE_LOCK.toMillis()) {
        fs.delete(lock, false);
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
        throw new InterruptedIOException("interrupted waiting for " + lock);
      }
    }
  }

  /**
   * Creates the lock file only if it does not exist, atomically. Hadoop's local file system checks for
   * the file and then creates it, so two processes can both "create" it; for {@code file:} paths the
   * JDK's {@code CREATE_NEW} (one atomic open with {@code O_EXCL}) is used instead. HDFS's own create
   * without overwrite is already exclusive (the NameNode refuses the second one).
   */
  private OutputStream createExclusively(Path lock) throws IOException {
    if ("file".equals(lock.toUri().getScheme())) {
      java.nio.file.Path local = java.nio.file.Path.of(lock.toUri().getPath());
      Files.createDirectories(local.getParent());
      return Files.newOutputStream(local, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE);
    }
    return fs.create(lock, false);
  }

  @Override
  public List<String> list(String dir) throws IOException {
    Path p = path(dir);
    FileStatus[] st;
    try {
      // A file is not a directory: listing one must not return the file itself (as HDFS would).
      if (!fs.getFileStatus(p).isDirectory()) {
        return List.of();
      }
      st = fs.listStatus(p);
    } catch (FileNotFoundException e) {
      return List.of();
    }
    return st == null ? List.of() : Arrays.stream(st).map(s -> s.getPath().getName()).sorted().toList();
  }

  @Override
  public void delete(String key) throws IOException {
    fs.delete(path(key), false);
  }

  @Override
  public void deleteTree(String dir) throws IOException {
    fs.delete(path(dir), true);
  }

  @Override
  public long lastModified(String key) throws IOException {
    try {
      return fs.getFileStatus(path(key)).getModificationTime();
    } catch (FileNotFoundException e) {
      return -1; // absent, or removed meanwhile (a released lock, say)
    }
  }
}
