package dev.kiln.search;

import dev.kiln.index.ShardSchema;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SafePaths;
import dev.kiln.snapshot.SnapshotException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.IOUtils;

/**
 * The shards of one snapshot opened as a single {@link MultiReader}. Searching one composite reader
 * makes BM25 use corpus-wide term statistics and lets a single top-k collection span every shard,
 * so scores are comparable across shards without a merge step.
 */
final class ShardReaders implements Closeable {
  private final List<Directory> directories;
  private final MultiReader reader;

  private ShardReaders(List<Directory> directories, MultiReader reader) {
    this.directories = directories;
    this.reader = reader;
  }

  /** Opens every shard the manifest lists under {@code snapshotDir}; nothing stays open on failure. */
  static ShardReaders open(Path snapshotDir, Manifest manifest) {
    List<Directory> directories = new ArrayList<>();
    List<DirectoryReader> readers = new ArrayList<>();
    String current = null;
    try {
      for (Manifest.ShardEntry shard : manifest.shards()) {
        current = shard.directory();
        // Memory-mapped explicitly: snapshots are read-only and the OS page cache is the cache.
        Directory dir = new MMapDirectory(SafePaths.resolve(snapshotDir, "shard directory", shard.directory()));
        directories.add(dir);
        readers.add(DirectoryReader.open(dir));
      }
      current = null;
      MultiReader multi = new MultiReader(readers.toArray(new IndexReader[0]), true);
      return new ShardReaders(directories, multi);
    } catch (IOException | RuntimeException e) {
      List<Closeable> opened = new ArrayList<>(readers);
      opened.addAll(directories);
      IOUtils.closeWhileHandlingException(opened);
      if (e instanceof SnapshotException se) {
        throw se;
      }
      throw new SnapshotException("cannot open shard " + current + " of snapshot " + manifest.id()
          + ": " + e.getMessage(), e);
    }
  }

  /**
   * The stored vectors must be what the manifest says, or dense search would fail deep in Lucene.
   * Only dense search depends on them, so BM25 keeps working on such a snapshot.
   */
  static void checkVectors(MultiReader reader, Manifest manifest) {
    FieldInfo f = FieldInfos.getMergedFieldInfos(reader).fieldInfo(ShardSchema.VECTOR);
    if (f != null && f.getVectorDimension() != manifest.model().dimension()) {
      throw new SnapshotException("snapshot " + manifest.id() + " stores " + f.getVectorDimension()
          + "-d vectors but its manifest records " + manifest.model().dimension() + "-d vectors of model "
          + manifest.model().name() + ": the snapshot is inconsistent; dense search is refused");
    }
  }

  MultiReader reader() {
    return reader;
  }

  @Override
  public void close() throws IOException {
    // The reader first: it holds files of the directories open.
    List<Closeable> all = new ArrayList<>();
    all.add(reader);
    all.addAll(directories);
    IOUtils.close(all);
  }
}
