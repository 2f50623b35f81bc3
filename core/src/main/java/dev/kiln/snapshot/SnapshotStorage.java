package dev.kiln.snapshot;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Optional;

/**
 * The few object operations the snapshot protocol needs, with object-store semantics so that it can
 * be implemented on S3 as well as on a local file system. Keys are {@code /}-separated and relative
 * to the snapshots root ({@code CURRENT}, {@code snapshots/ID/manifest.json}).
 *
 * <p>Guarantees an implementation must give:
 *
 * <ul>
 *   <li>{@link #write} is all-or-nothing: a reader sees the old object (or none) or the whole new
 *       one, never a prefix; it is durable when the call returns. (An S3 PUT is; a local file needs
 *       a temporary name, fsync and rename.)
 *   <li>{@link #compareAndSet} replaces an object only if it still holds {@code expected}. Locally
 *       this is a file lock around read-compare-rename; on S3, a conditional PUT ({@code If-Match} on
 *       the ETag, {@code If-None-Match: *} for a first write). Where a store offers no conditional
 *       write, an implementation may re-read and compare just before an unconditional write; the
 *       protocol re-reads after writing and reports a lost race (docs/FORMATS.md).
 *   <li>No rename is required: the protocol never moves objects.
 * </ul>
 */
public interface SnapshotStorage {
  /** The object's bytes, or empty when it does not exist. */
  Optional<byte[]> read(String key) throws IOException;

  /**
   * The object's bytes, or empty when it does not exist, read only up to {@code maxBytes}: a larger
   * object is refused with an {@link IOException} saying so, without reading it whole.
   */
  default Optional<byte[]> read(String key, int maxBytes) throws IOException {
    try (InputStream in = open(key)) {
      byte[] bytes = in.readNBytes(maxBytes + 1);
      if (bytes.length > maxBytes) {
        throw new IOException(key + " is larger than " + maxBytes + " bytes: refused");
      }
      return Optional.of(bytes);
    } catch (NoSuchFileException | FileNotFoundException e) {
      return Optional.empty();
    }
  }

  /**
   * Runs {@code action} holding the root's exclusive lock on {@code key} — the same lock
   * {@link #compareAndSet} of that key takes where it takes one — so that a publish and a gc
   * serialise their read of {@code CURRENT} with what they do next. Re-entrant within one thread:
   * a compare-and-set inside the action does not deadlock.
   */
  <T> T locked(String key, LockedAction<T> action) throws IOException;

  /** Work done under {@link #locked}. */
  @FunctionalInterface
  interface LockedAction<T> {
    T run() throws IOException;
  }

  /** A stream over a (possibly large) object; throws {@link java.nio.file.NoSuchFileException} when absent. */
  InputStream open(String key) throws IOException;

  /** The object's size in bytes; throws {@link java.nio.file.NoSuchFileException} when absent. */
  long size(String key) throws IOException;

  boolean exists(String key) throws IOException;

  /**
   * The object's size and version token ({@link ObjectStat}) from one metadata request; throws
   * {@link java.nio.file.NoSuchFileException} when absent. Object stores override it: the token lets a
   * {@code VERIFIED} record vouch for a file that a later snapshot references without hashing it
   * again ({@link ReferencedFilesPolicy}). By default: the size alone, no token.
   */
  default ObjectStat stat(String key) throws IOException {
    return new ObjectStat(size(key), null);
  }

  /** Writes a whole object atomically and durably (see the class comment). */
  void write(String key, byte[] data) throws IOException;

  /**
   * Replaces {@code key} with {@code update} only if it currently holds {@code expected}
   * ({@code null}: only if it does not exist).
   *
   * @return false, changing nothing, when the object held something else
   */
  boolean compareAndSet(String key, byte[] expected, byte[] update) throws IOException;

  /** Names of the entries directly under {@code prefix} (a "directory" key ending in {@code /}), sorted. */
  List<String> list(String prefix) throws IOException;

  /** Removes one object; absent objects are ignored. */
  void delete(String key) throws IOException;

  /** Removes every object under {@code prefix} (ending in {@code /}). */
  void deleteTree(String prefix) throws IOException;

  /** Creation or modification time of the object in epoch milliseconds, or -1 when unknown. */
  long lastModified(String key) throws IOException;

  /**
   * The object's {@link FileIdentity} — size, modification time, file key — where the store keeps
   * one that changes whenever the object is rewritten or replaced (a local file system); empty where
   * it does not (an object store: nothing there can bind a {@code VERIFIED} record to an object, so
   * readers hash). A store with identities throws {@link java.nio.file.NoSuchFileException} for an
   * absent object; one without answers empty without asking the store.
   */
  default Optional<FileIdentity> identity(String key) throws IOException {
    return Optional.empty();
  }

  /**
   * Where a snapshot's shared files are read. On an object store ({@code false}) a file a format-2
   * manifest references lives once, at its owner's key ({@link SnapshotLayout#fileKey}). On a local
   * file system ({@code true}) each snapshot directory also holds a hard link (or a copy, where links
   * are impossible) of every file it references, so that Lucene opens a shard as one directory: the
   * snapshot's own path is then what readers read, and what is verified.
   */
  default boolean linksSharedFiles() {
    return false;
  }

  /**
   * Makes the file at {@code from} also readable at {@code to}, without copying it where the storage
   * can help it: a hard link on a local file system. Only storages that {@link #linksSharedFiles}
   * are asked; on the others a reference in the manifest is all a shared file needs.
   *
   * @throws java.nio.file.FileAlreadyExistsException when {@code to} exists
   */
  default void share(String from, String to) throws IOException {
    throw new UnsupportedOperationException("this storage keeps shared files at their owner's key only");
  }

  /** The key at which a reader of snapshot {@code id} finds file {@code f} of {@code directory}. */
  default String fileKey(String id, String directory, Manifest.FileEntry f) {
    return linksSharedFiles()
        ? SafePaths.key(SnapshotLayout.snapshotKey(id), "file", directory + "/" + f.name())
        : SnapshotLayout.fileKey(id, directory, f);
  }
}
