package dev.kiln.snapshot.io;

import dev.kiln.snapshot.RemoteSnapshotRoots;
import dev.kiln.snapshot.ShardFilter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Where the local copy of a remote snapshots root lives. */
public final class RemoteRoots {
  /** Serving processes of one root on one host, at most: each needs a cache of its own. */
  static final int MAX_SERVE_CACHES = 64;

  private RemoteRoots() {}

  /** Whether a snapshots root or corpus names a non-local file system: {@link RemoteSnapshotRoots#isRemote}. */
  public static boolean isRemote(String uri) {
    return RemoteSnapshotRoots.isRemote(uri);
  }

  /**
   * A directory under the Kiln cache ({@code kiln.cache.dir}, else the temporary directory) named after
   * the remote root, so that repeated searches reuse what was downloaded.
   */
  public static Path localMirror(String remoteRoot) {
    String base = System.getProperty("kiln.cache.dir", System.getProperty("java.io.tmpdir"));
    String name = remoteRoot.replaceAll("[^A-Za-z0-9._-]+", "_");
    return Path.of(base, "remote-snapshots", name);
  }

  /**
   * The local copy a library searcher of some shards of a remote root downloads into: next to the
   * shared mirror, named after the selection ({@code <mirror>.shards-0-3}). It is a serving copy (no
   * stored vectors, other shards' files removed), which the shared mirror must not become: builds
   * continue from it.
   */
  public static Path groupMirror(String remoteRoot, ShardFilter shards) {
    Path mirror = localMirror(remoteRoot);
    return mirror.resolveSibling(mirror.getFileName() + ".shards-" + shards.toString().replaceAll("[^A-Za-z0-9._-]+", "_"));
  }

  /**
   * A local copy for one serving process, held (an OS file lock) until closed: the first of
   * {@code <mirror>.serve-1}, {@code .serve-2}, … that no other process holds. The HTTP service prunes
   * its copy as it follows {@code CURRENT}, which must not pull files from under a build verifying
   * into the shared mirror or from a second service of the same root; a restarted service takes its
   * old copy back and downloads only what changed.
   */
  public static ServeCache claimServeCache(String remoteRoot) throws IOException {
    Path mirror = localMirror(remoteRoot);
    for (int i = 1; i <= MAX_SERVE_CACHES; i++) {
      Path dir = mirror.resolveSibling(mirror.getFileName() + ".serve-" + i);
      Files.createDirectories(dir);
      FileChannel channel = FileChannel.open(dir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null; // held by this very JVM
      }
      if (lock != null) {
        return new ServeCache(dir, channel);
      }
      channel.close();
    }
    throw new IOException("every serving cache of " + remoteRoot + " next to " + mirror + " is in use ("
        + MAX_SERVE_CACHES + " processes?)");
  }

  /** A claimed serving cache; closing it releases the claim. */
  public record ServeCache(Path dir, FileChannel lock) implements Closeable {
    @Override
    public void close() throws IOException {
      lock.close();
    }
  }
}
