package dev.kiln.ingest;

import dev.kiln.snapshot.CorpusFiles;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.enumerate.NonSplittingRecursiveEnumerator;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists corpus files recursively and cuts large uncompressed JSON-lines and Parquet files into byte
 * ranges of {@code splitBytes}, so one big file is read by several readers in parallel. Readers
 * align ranges to record boundaries themselves (lines, row groups); every other file is one split.
 * Unlike Flink's block splitter this works the same on every file system, local ones included.
 *
 * <p>A hostile tree cannot stop the listing: an entry that cannot be listed or stat'ed (a dangling or
 * looping symbolic link, no permission) and a directory reached a second time through a symbolic link
 * (a loop back to an ancestor, or an alias that would index the same files twice) become one
 * <em>unreadable</em> split each, which the reader turns into an {@code unreadable_path} quarantine
 * record, so the path is counted and named instead of failing the build or being read twice.
 */
public final class CorpusFileEnumerator extends NonSplittingRecursiveEnumerator {
  private static final Logger LOG = LoggerFactory.getLogger(CorpusFileEnumerator.class);

  /** The file size an unreadable split carries: no real file has a negative size. */
  static final long UNREADABLE = -1;

  private final CorpusFileFormat format;
  private final long splitBytes;
  /** Files an incremental build leaves unread (unchanged since its base), by URI; empty: none. */
  private final Set<String> unread;

  public CorpusFileEnumerator(CorpusFileFormat format, long splitBytes) {
    this.format = format;
    this.splitBytes = splitBytes;
    this.unread = Set.of();
  }

  /**
   * @param corpusListing an incremental build's {@code corpus-files.tsv} (a local path or a file
   *     system URI), whose {@code kept} files are not listed as splits: the shard writers keep their
   *     documents from the base
   */
  public CorpusFileEnumerator(CorpusFileFormat format, long splitBytes, String corpusListing) throws IOException {
    this.format = format;
    this.splitBytes = splitBytes;
    this.unread = keptFiles(corpusListing);
    LOG.info("{} corpus files unchanged since the base are not read ({})", unread.size(), corpusListing);
  }

  /**
   * The URIs of the files a corpus listing marks kept, read through Flink's file systems: the listing
   * lies in the snapshot being built, which on a remote root is an object of the bucket, and the
   * enumerator (on the JobManager) and the shard writers (on the TaskManagers) read that one copy.
   */
  public static Set<String> keptFiles(String corpusListing) throws IOException {
    return listing(corpusListing).keptUris();
  }

  /**
   * Every file URI of the corpus listing at {@code corpusListing}, or an empty set when there is none
   * (a changelog build lists no corpus files).
   */
  public static Set<String> listedFiles(String corpusListing) throws IOException {
    Path path = new Path(corpusListing);
    return path.getFileSystem().exists(path) ? new HashSet<>(listing(corpusListing).byUri().keySet()) : Set.of();
  }

  private static CorpusFiles listing(String corpusListing) throws IOException {
    Path path = new Path(corpusListing);
    try (InputStream in = path.getFileSystem().open(path)) {
      return CorpusFiles.read(in);
    }
  }

  /** Whether the split stands for a path the listing could not use. */
  public static boolean isUnreadable(FileSourceSplit split) {
    return split.fileSize() == UNREADABLE;
  }

  @Override
  protected void addSplitsForPath(FileStatus status, FileSystem fs, ArrayList<FileSourceSplit> target)
      throws IOException {
    walk(status, fs, target, new HashSet<>());
  }

  private void walk(FileStatus status, FileSystem fs, List<FileSourceSplit> target, Set<java.nio.file.Path> seen)
      throws IOException {
    Path path = status.getPath();
    if (!fileFilter.test(path)) {
      return;
    }
    if (!status.isDir()) {
      if (!unread.contains(path.toString())) {
        convertToSourceSplits(status, fs, target);
      }
      return;
    }
    java.nio.file.Path local = localPath(fs, path);
    if (local == null) {
      FileStatus[] children;
      try {
        children = fs.listStatus(path);
      } catch (IOException | RuntimeException e) {
        unreadable(path, e.toString(), target);
        return;
      }
      for (FileStatus child : children == null ? new FileStatus[0] : children) {
        walk(child, fs, target, seen);
      }
      return;
    }
    // Local trees are listed here rather than by Flink's LocalFileSystem, whose listing fails as a
    // whole on one bad entry and follows directory links forever.
    java.nio.file.Path real;
    List<String> names = new ArrayList<>();
    try {
      real = local.toRealPath();
      if (!seen.add(real)) {
        unreadable(path, "directory " + real + " already listed (symbolic link loop or alias)", target);
        return;
      }
      try (DirectoryStream<java.nio.file.Path> entries = Files.newDirectoryStream(local)) {
        entries.forEach(e -> names.add(e.getFileName().toString()));
      }
    } catch (IOException | RuntimeException e) {
      unreadable(path, e.toString(), target);
      return;
    }
    names.sort(Comparator.naturalOrder());
    for (String name : names) {
      Path child = new Path(path, name);
      FileStatus childStatus;
      try {
        childStatus = fs.getFileStatus(child);
      } catch (IOException | RuntimeException e) {
        if (fileFilter.test(child)) {
          unreadable(child, e.toString(), target);
        }
        continue;
      }
      walk(childStatus, fs, target, seen);
    }
  }

  private void unreadable(Path path, String why, List<FileSourceSplit> target) {
    LOG.warn("unreadable corpus path {}: {}; it is quarantined as {} and the build goes on", path, why,
        QuarantineReason.UNREADABLE_PATH);
    target.add(new FileSourceSplit(getNextId(), path, 0, 0, 0, UNREADABLE));
  }

  /** The path on the local disk, or {@code null} on any other file system. */
  private static java.nio.file.Path localPath(FileSystem fs, Path path) {
    String scheme = fs.getUri().getScheme();
    return scheme == null || scheme.equals("file") ? new File(path.toUri().getPath()).toPath() : null;
  }

  /**
   * What is wrong with an unreadable split's path, for its quarantine record; worked out again where
   * the split is read, since a split carries no text.
   */
  static String diagnose(Path path) {
    try {
      FileSystem fs = FileSystem.get(path.toUri());
      java.nio.file.Path local = localPath(fs, path);
      if (local == null) {
        fs.listStatus(path);
        return path + ": could not be listed";
      }
      BasicFileAttributes attributes = Files.readAttributes(local, BasicFileAttributes.class);
      if (attributes.isDirectory()) {
        try (DirectoryStream<java.nio.file.Path> entries = Files.newDirectoryStream(local)) {
          return path + ": directory " + local.toRealPath() + " already listed (symbolic link loop or alias)";
        }
      }
      return path + ": could not be read";
    } catch (IOException | RuntimeException e) {
      return path + ": " + e;
    }
  }

  @Override
  protected void convertToSourceSplits(FileStatus file, FileSystem fs, List<FileSourceSplit> target) {
    long len = file.getLen();
    if (!format.isSplittable(file.getPath()) || len <= splitBytes) {
      target.add(new FileSourceSplit(getNextId(), file.getPath(), 0, len, file.getModificationTime(), len));
      return;
    }
    for (long off = 0; off < len; off += splitBytes) {
      target.add(new FileSourceSplit(getNextId(), file.getPath(), off, Math.min(splitBytes, len - off),
          file.getModificationTime(), len));
    }
  }
}
